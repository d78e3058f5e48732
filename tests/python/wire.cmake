# The learner's one definition of the wire format (python/craftground_capture/_wire.py),
# label python: python_wire_drift compares it with src/zc/cg_zc_proto.h (the source of
# truth, read as text), parse_descriptor with the header's offsets, lease.c's offsets
# (source and built helper) with it; any copy that drifts fails.
if(CG_PYTHON3)
  set(cg_wire_env "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
  if(TARGET cg_py_lease)
    list(APPEND cg_wire_env "CRAFTGROUND_CAPTURE_NATIVE=$<TARGET_FILE:cg_py_lease>")
  endif()
  add_test(NAME python_wire_drift COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_wire.py
           ${PROJECT_SOURCE_DIR}/src/zc/cg_zc_proto.h ${PROJECT_SOURCE_DIR}/python/native/lease.c)
  set_tests_properties(python_wire_drift PROPERTIES LABELS python TIMEOUT 60
                       ENVIRONMENT "${cg_wire_env}")
endif()
