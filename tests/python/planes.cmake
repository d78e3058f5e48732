# Descriptor version 3 in the learner (depth and stereo planes,
# docs/zero-copy-v2/protocol.md "Depth and stereo planes"), label python:
#   python_planes_unit      golden v3 descriptors, every refusal, frames of
#                           rings served from Python: rgb/depth/eyes shapes,
#                           strides, CUDA array interface and DLPack fields
#                           (a stand-in importer, no CUDA)
#   python_planes_fakecuda  the planes' values and the VectorLearner's rgb and
#                           depth batches through the stand-in libcuda
#                           (ring.cmake's fake_cuda_ext, where cuda.h is found)
#   python_planes_live      a real producer's RGB-D and stereo rings (test_zc_ring
#                           serve ... planes, fence mode, lavapipe, label vulkan
#                           too) through the stand-in: RingLearner's and
#                           VectorLearner's rgb and depth against the pattern,
#                           raw bit-exact, linear within 2 ulps of the formula
#   python_planes_cuda      the same, semaphore mode, the real CUDA driver (the
#                           GPU machine; labels cuda, python)
if(CG_PYTHON3)
  add_test(NAME python_planes_unit COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_planes.py unit)
  set_tests_properties(python_planes_unit PROPERTIES LABELS python TIMEOUT 60
                       ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
endif()
if(CG_PYTHON3 AND TARGET fake_cuda_ext)
  add_test(NAME python_planes_fakecuda
           COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_planes.py fakecuda)
  set_tests_properties(python_planes_fakecuda PROPERTIES LABELS python TIMEOUT 60 ENVIRONMENT
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;CRAFTGROUND_CAPTURE_LIBCUDA=$<TARGET_FILE:fake_cuda_ext>;${cg_native_env}")
endif()
if(CG_PYTHON3 AND TARGET fake_cuda_ext AND TARGET test_zc_ring)
  add_test(NAME python_planes_live COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_planes.py live
           $<TARGET_FILE:test_zc_ring>)
  set_tests_properties(python_planes_live PROPERTIES LABELS "python;vulkan" SKIP_RETURN_CODE 77
    TIMEOUT 120 ENVIRONMENT
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;CRAFTGROUND_CAPTURE_LIBCUDA=$<TARGET_FILE:fake_cuda_ext>;${cg_native_env}")
endif()
# (The vector learner's rows here with the native helper where it is built: ring.cmake.)
# The GPU machine: the same rings in semaphore mode read by the real CUDA
# learner (labels cuda, python; 77 without libcuda or a device).
if(CG_PYTHON3 AND TARGET test_zc_ring)
  add_test(NAME python_planes_cuda COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_planes.py cuda
           $<TARGET_FILE:test_zc_ring>)
  set_tests_properties(python_planes_cuda PROPERTIES LABELS "cuda;python" SKIP_RETURN_CODE 77
                       TIMEOUT 300
                       ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;${cg_native_env}")
endif()
