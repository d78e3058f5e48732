# The learner side against hostile producers and arguments (issue 41), label python:
#   python_hostile_control  control blocks a producer written in Python hands over
#                           without the seals docs/zero-copy-v2.md names, then
#                           shrinks; a directory; a read-only fd: RingError at
#                           connect (each learner in a child: a SIGBUS fails it)
#   python_hostile_nogpu    no libcuda: RingLearner/VectorLearner raise DeviceError,
#                           VectorLearner.native is readable on the class
if(CG_PYTHON3)
  set(cg_hostile_env "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
  if(TARGET cg_py_lease)
    list(APPEND cg_hostile_env "CRAFTGROUND_CAPTURE_NATIVE=$<TARGET_FILE:cg_py_lease>")
  endif()
  foreach(mode control)
    add_test(NAME python_hostile_${mode}
             COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_hostile.py ${mode})
    set_tests_properties(python_hostile_${mode} PROPERTIES LABELS python SKIP_RETURN_CODE 77
                         TIMEOUT 120 ENVIRONMENT "${cg_hostile_env}")
  endforeach()
endif()
