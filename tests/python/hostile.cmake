# The learner side against hostile producers and arguments (issue 41), label python:
#   python_hostile_control  control blocks a producer written in Python hands over
#                           without the seals docs/zero-copy-v2/protocol.md names, then
#                           shrinks; a directory; a read-only fd: RingError at
#                           connect (each learner in a child: a SIGBUS fails it)
#   python_hostile_nogpu    no libcuda: RingLearner/VectorLearner raise DeviceError,
#                           VectorLearner.native is readable on the class
#   python_hostile_refs     the native helper's commit(): 1,000 failed commits leave
#                           every reference count as it was
#   python_hostile_race     the native helper's release() against ControlBlock.close()
#                           in another thread (a store after the unmap: SIGSEGV)
#   python_hostile_args     the native helper's calls with arguments that run Python
#                           code freeing what the call reads
#   python_hostile_*_asan   race and args again with the helper built with ASan
#                           (python/native: cg_py_lease_asan), libasan preloaded and
#                           PYTHONMALLOC=malloc: a use after free is a report
# Without the helper (python/native not built) the helper's tests exit 77 (SKIPPED).
if(CG_PYTHON3)
  set(cg_hostile_env "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
  if(TARGET cg_py_lease)
    list(APPEND cg_hostile_env "CRAFTGROUND_CAPTURE_NATIVE=$<TARGET_FILE:cg_py_lease>")
  else()
    list(APPEND cg_hostile_env "CRAFTGROUND_CAPTURE_NATIVE=0")
  endif()
  foreach(mode control nogpu refs race args)
    add_test(NAME python_hostile_${mode}
             COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_hostile.py ${mode})
    set_tests_properties(python_hostile_${mode} PROPERTIES LABELS python SKIP_RETURN_CODE 77
                         TIMEOUT 120 ENVIRONMENT "${cg_hostile_env}")
  endforeach()
  if(TARGET cg_py_lease_asan)
    foreach(mode race args)
      add_test(NAME python_hostile_${mode}_asan
               COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_hostile.py ${mode})
      set_tests_properties(python_hostile_${mode}_asan PROPERTIES LABELS python
        SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT
        "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;CRAFTGROUND_CAPTURE_NATIVE=$<TARGET_FILE:cg_py_lease_asan>;LD_PRELOAD=${CG_LIBASAN};ASAN_OPTIONS=detect_leaks=0;PYTHONMALLOC=malloc")
    endforeach()
  endif()
endif()
