# VectorLearner's observation spaces (gymnasium's vector-env names), label python:
#   python_spaces_unit      spec.planes_space and the package's BoxSpace/DictSpace
#                           against shapes, dtypes and bounds written by hand
#   python_spaces_fakecuda  VectorLearners of RGBA, RGB and stereo RGB-D rings served
#                           from Python (ring.cmake's stand-in libcuda): both spaces,
#                           and a step's batch lies in observation_space
if(CG_PYTHON3)
  add_test(NAME python_spaces_unit COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_spaces.py unit)
  set_tests_properties(python_spaces_unit PROPERTIES LABELS python TIMEOUT 60
                       ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
endif()
if(CG_PYTHON3 AND TARGET fake_cuda_ext)
  add_test(NAME python_spaces_fakecuda
           COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_spaces.py fake)
  set_tests_properties(python_spaces_fakecuda PROPERTIES LABELS python TIMEOUT 60 ENVIRONMENT
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;CRAFTGROUND_CAPTURE_LIBCUDA=$<TARGET_FILE:fake_cuda_ext>")
endif()
