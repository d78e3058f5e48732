# The zero-copy v2 learner (python/craftground_capture/ring.py), label python:
#   python_ring_unit   descriptor golden bytes, a producer written in Python
#                      from docs/zero-copy-v2/protocol.md (hello + SCM_RIGHTS), leases,
#                      streams, every bad input; a stand-in importer, no CUDA
#   python_ring_live   the real C producer (test_zc_ring serve, fence mode, on
#                      lavapipe, label vulkan too): fds, leases, frames
#                      byte-exact, a second learner refused, reclaim on exit
if(CG_PYTHON3)
  add_test(NAME python_ring_unit COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_ring.py unit)
  set_tests_properties(python_ring_unit PROPERTIES LABELS python TIMEOUT 60
                       ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
  if(TARGET test_zc_ring)
    add_test(NAME python_ring_live COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_ring.py live
             $<TARGET_FILE:test_zc_ring>)
    set_tests_properties(python_ring_live PROPERTIES LABELS "python;vulkan" SKIP_RETURN_CODE 77
                         TIMEOUT 60 ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
  endif()
endif()
# The GPU machine: the real CUDA learner against the producer in semaphore
# mode (labels cuda, python; 77 without libcuda or a device).
if(CG_PYTHON3 AND TARGET test_zc_ring)
  add_test(NAME python_ring_cuda COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_ring.py cuda
           $<TARGET_FILE:test_zc_ring>)
  set_tests_properties(python_ring_cuda PROPERTIES LABELS "cuda;python" SKIP_RETURN_CODE 77
                       TIMEOUT 300 ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
endif()
# The CUDA importer's ctypes calls against a stand-in libcuda compiled with
# the toolkit's cuda.h (so the struct layouts are the real ones): only where
# cuda.h is found; frames come from the real producer on lavapipe.
find_path(CG_CUDA_H cuda.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
if(CG_PYTHON3 AND TARGET test_zc_ring AND CG_CUDA_H)
  add_library(fake_cuda_ext SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_cuda_ext.c)
  target_include_directories(fake_cuda_ext SYSTEM PRIVATE ${CG_CUDA_H})
  cg_target_warnings(fake_cuda_ext)
  add_test(NAME python_ring_fakecuda COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_ring.py
           fakecuda $<TARGET_FILE:test_zc_ring>)
  set_tests_properties(python_ring_fakecuda PROPERTIES LABELS "python;vulkan" SKIP_RETURN_CODE 77
    TIMEOUT 60 ENVIRONMENT
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;CRAFTGROUND_CAPTURE_LIBCUDA=$<TARGET_FILE:fake_cuda_ext>")
endif()

# The same learner reading the GL producer (tests/gl: test_gl_ring serve, the
# same command line): through the stand-in libcuda on llvmpipe/lavapipe
# (labels gl, vulkan too), and through the real CUDA driver in semaphore mode
# on the GPU machine (77 here).
if(CG_PYTHON3 AND TARGET test_gl_ring)
  if(TARGET fake_cuda_ext)
    add_test(NAME python_gl_ring_fakecuda COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_ring.py
             fakecuda $<TARGET_FILE:test_gl_ring>)
    set_tests_properties(python_gl_ring_fakecuda PROPERTIES LABELS "python;gl;vulkan"
      SKIP_RETURN_CODE 77 TIMEOUT 60 ENVIRONMENT
      "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;CRAFTGROUND_CAPTURE_LIBCUDA=$<TARGET_FILE:fake_cuda_ext>")
  endif()
  add_test(NAME python_gl_ring_cuda COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_ring.py cuda
           $<TARGET_FILE:test_gl_ring>)
  set_tests_properties(python_gl_ring_cuda PROPERTIES LABELS "cuda;python;gl" SKIP_RETURN_CODE 77
                       TIMEOUT 300 ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
endif()

# The vector learner (python/craftground_capture/vector.py, label python):
#   python_vector_fakecuda     three real producers (fence mode, lavapipe) through
#                              the stand-in libcuda: batches byte-exact, new
#                              flags, double-buffered rows, release after the
#                              gather's event, reconnect, refusals, counters
#   python_gl_vector_fakecuda  the same against the GL producer (rows bottom-up:
#                              the upright batch is flipped)
#   python_vector_fakesem      rings served from Python in semaphore mode, RGB
#                              slots: one wait call for every ring
#   python_example_vector_env  the example's loops (lockstep, double-buffered)
#   python_vector_ptx          the shipped PTX equals a fresh nvcc compile (77
#                              without nvcc or with another nvcc version)
#   python_vector_cuda         the GPU machine: the real driver and kernel
#   python_vector_reconnect    rings served from Python: a row whose reconnect fails (its
#                              game gone again) costs the other rows nothing, reports why,
#                              and reconnects later (also _python: the leases in Python)
#   python_vector_native       the native helper (python/native/lease.c) on its own:
#                              good and hostile rows, lease words by the formula
# With the native helper built (python/native), the tests above run with it (named in
# $CRAFTGROUND_CAPTURE_NATIVE, checked in use), and python_vector_fakecuda_python,
# python_vector_fakesem_python and python_vector_reconnect_python again with the leases in
# Python (=0).
set(cg_native_env "CRAFTGROUND_CAPTURE_NATIVE=0")
if(TARGET cg_py_lease)
  set(cg_native_env "CRAFTGROUND_CAPTURE_NATIVE=$<TARGET_FILE:cg_py_lease>")
endif()
if(CG_PYTHON3)
  add_test(NAME python_vector_native COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_vector.py
           native)
  set_tests_properties(python_vector_native PROPERTIES LABELS python SKIP_RETURN_CODE 77
                       TIMEOUT 60 ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;${cg_native_env}")
endif()
if(CG_PYTHON3 AND TARGET fake_cuda_ext)
  set(cg_fake_env
      "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;CRAFTGROUND_CAPTURE_LIBCUDA=$<TARGET_FILE:fake_cuda_ext>")
  set(cg_fake_py_env "${cg_fake_env};CRAFTGROUND_CAPTURE_NATIVE=0")
  list(APPEND cg_fake_env "${cg_native_env}")
  foreach(mode fakesem reconnect)
    add_test(NAME python_vector_${mode} COMMAND ${CG_PYTHON3}
             ${CMAKE_CURRENT_LIST_DIR}/test_vector.py ${mode})
    set_tests_properties(python_vector_${mode} PROPERTIES LABELS python TIMEOUT 60
                         ENVIRONMENT "${cg_fake_env}")
    if(TARGET cg_py_lease)
      add_test(NAME python_vector_${mode}_python COMMAND ${CG_PYTHON3}
               ${CMAKE_CURRENT_LIST_DIR}/test_vector.py ${mode})
      set_tests_properties(python_vector_${mode}_python PROPERTIES LABELS python TIMEOUT 60
                           ENVIRONMENT "${cg_fake_py_env}")
    endif()
  endforeach()
  foreach(p zc_ring gl_ring)
    if(TARGET test_${p})
      set(name python_vector_fakecuda)
      if(p STREQUAL gl_ring)
        set(name python_gl_vector_fakecuda)
      endif()
      add_test(NAME ${name} COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_vector.py
               fakecuda $<TARGET_FILE:test_${p}>)
      set_tests_properties(${name} PROPERTIES LABELS "python;vulkan" SKIP_RETURN_CODE 77
                           TIMEOUT 120 ENVIRONMENT "${cg_fake_env}")
      if(p STREQUAL zc_ring AND TARGET cg_py_lease)
        add_test(NAME python_vector_fakecuda_python COMMAND ${CG_PYTHON3}
                 ${CMAKE_CURRENT_LIST_DIR}/test_vector.py fakecuda $<TARGET_FILE:test_${p}>)
        set_tests_properties(python_vector_fakecuda_python PROPERTIES LABELS "python;vulkan"
                             SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "${cg_fake_py_env}")
      endif()
    endif()
  endforeach()
  # bench/vector_calls.py (the step's calls one by one) runs to its last row on the stand-in.
  add_test(NAME bench_vector_calls_smoke COMMAND ${CG_PYTHON3}
           ${PROJECT_SOURCE_DIR}/bench/vector_calls.py)
  set_tests_properties(bench_vector_calls_smoke PROPERTIES LABELS python TIMEOUT 120
                       ENVIRONMENT "${cg_fake_env}"
                       PASS_REGULAR_EXPRESSION "with argtypes converting \\(before\\) +[0-9.]+"
                       FAIL_REGULAR_EXPRESSION "skipped|Traceback")
  # python/examples/vector_env.py: --help without torch/GPU, both loops on lavapipe.
  if(TARGET test_zc_ring)
    add_test(NAME python_example_vector_env COMMAND ${CG_PYTHON3}
             ${CMAKE_CURRENT_LIST_DIR}/test_vector.py example $<TARGET_FILE:test_zc_ring>)
    set_tests_properties(python_example_vector_env PROPERTIES LABELS "python;vulkan"
                         SKIP_RETURN_CODE 77 TIMEOUT 120 ENVIRONMENT "${cg_fake_env}")
  endif()
endif()
if(CG_PYTHON3)
  add_test(NAME python_vector_ptx COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_vector.py ptx)
  set_tests_properties(python_vector_ptx PROPERTIES LABELS python SKIP_RETURN_CODE 77 TIMEOUT 120
                       ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
  if(TARGET test_zc_ring)
    add_test(NAME python_vector_cuda COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_vector.py
             cuda $<TARGET_FILE:test_zc_ring>)
    set_tests_properties(python_vector_cuda PROPERTIES LABELS "cuda;python" SKIP_RETURN_CODE 77
                         TIMEOUT 300
                         ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python;${cg_native_env}")
  endif()
endif()

# Learner and games on different GPUs (python/craftground_capture/_device.py):
#   python_device_fakecuda  the stand-in libcuda with 1 or 2 devices, with and
#                           without peer access, rings served from Python:
#                           every decision and error, frames and batches
#                           byte-exact through the peer and staged copies, the
#                           order of the stream work, the path and log line
#   python_device_fakegames the 2-GPU machine's script (below) against the
#                           stand-in's two devices, games served by
#                           tests/python/fake_game.py (test_zc_ring's
#                           command line and output): the script itself runs
#   python_device_cuda      the 2-GPU machine (77 with fewer than 2 CUDA
#                           devices): games on GPU 0 -> learner on GPU 1 and
#                           the reverse, peer and staged, byte-exact
if(CG_PYTHON3 AND TARGET fake_cuda_ext)
  add_test(NAME python_device_fakecuda COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_device.py
           fake)
  add_test(NAME python_device_fakegames COMMAND ${CG_PYTHON3}
           ${CMAKE_CURRENT_LIST_DIR}/test_device.py cuda ${CMAKE_CURRENT_LIST_DIR}/fake_game.py)
  set_tests_properties(python_device_fakecuda PROPERTIES LABELS python TIMEOUT 60
                       ENVIRONMENT "${cg_fake_env}")
  set_tests_properties(python_device_fakegames PROPERTIES LABELS python TIMEOUT 120
    ENVIRONMENT "${cg_fake_env};CG_FAKE_CUDA_UUID=101112131415161718191a1b1c1d1e1f")
endif()
if(CG_PYTHON3 AND TARGET test_zc_ring)
  add_test(NAME python_device_cuda COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/test_device.py
           cuda $<TARGET_FILE:test_zc_ring>)
  set_tests_properties(python_device_cuda PROPERTIES LABELS "cuda;python" SKIP_RETURN_CODE 77
                       TIMEOUT 300 ENVIRONMENT "PYTHONPATH=${PROJECT_SOURCE_DIR}/python")
endif()
