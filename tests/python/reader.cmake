# The Python reader package (python/craftground_capture), label python:
#   python_reader_unit         PNG decoder on all five filters, hand-made
#                              protobuf messages, DLPack export on host memory,
#                              the CUDA calls against a stand-in library
#   python_reader_api          every public name documented and annotated,
#                              py.typed, observation_spec / gymnasium_box
#                              (a stand-in gymnasium), FormatError for
#                              corrupt PNGs through PIL and the built-in decoder
#   python_reader_frames/_check  RAW and PNG from the library in a JVM, and
#                              messages encoded by protobuf-java
#   python_reader_depth_frames/_check  captureDepthImpl on a GL context
#                              (llvmpipe here), labels gl too
#   python_reader_install      pip install ./python into a venv
#   python_reader_cuda         the zero-copy frame through CuPy and torch as
#                              test_cuda_vk's second process (label cuda; 77
#                              without a GPU)
set(d ${CMAKE_CURRENT_SOURCE_DIR})
set(pkg ${PROJECT_SOURCE_DIR}/python)
if(CG_PYTHON3)
  # A stand-in for libcuda/libcudart: the zero-copy frame's ctypes calls run
  # against it here (the real ones run in python_reader_cuda).
  add_library(fake_cuda SHARED ${d}/fake_cuda.c)
  cg_target_warnings(fake_cuda)
  add_test(NAME python_reader_unit COMMAND ${CG_PYTHON3} ${d}/test_reader.py unit)
  set_tests_properties(python_reader_unit PROPERTIES LABELS python
                       ENVIRONMENT "PYTHONPATH=${pkg};CG_FAKE_CUDA=$<TARGET_FILE:fake_cuda>")
  add_test(NAME python_reader_api COMMAND ${CG_PYTHON3} ${d}/test_api.py)
  set_tests_properties(python_reader_api PROPERTIES LABELS python ENVIRONMENT PYTHONPATH=${pkg}:${d})

  # pip builds the package with the system's setuptools (no index, no build
  # isolation: there is no PyPI here) into a fresh venv, then imports it from
  # outside the source tree. It builds a copy: setuptools writes build/ and
  # *.egg-info next to the sources.
  set(venv ${CMAKE_CURRENT_BINARY_DIR}/reader-venv)
  add_test(NAME python_reader_install COMMAND sh -c
    "rm -rf '${venv}' '${venv}-src' && cp -r '${pkg}' '${venv}-src' && \
     '${CG_PYTHON3}' -m venv --without-pip --system-site-packages '${venv}' && \
     '${CG_PYTHON3}' -m pip --python '${venv}/bin/python' install -q --no-index --no-build-isolation '${venv}-src' && \
     cd / && '${venv}/bin/python' -c 'import craftground_capture as c, sys; \
     assert \"${venv}\" in c.__file__, c.__file__; print(\"installed\", c.__version__, c.__file__)'")
  set_tests_properties(python_reader_install PROPERTIES LABELS python)

  if(CG_WITH_JNI)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/reader-out)
    cg_add_jvm_test(NAME python_reader_frames MAIN cgtest.ReaderFrames LABELS python
                    SOURCES ${d}/ReaderFrames.java ${d}/ConsumerFrames.java
                            ${PROJECT_SOURCE_DIR}/tests/gl/GlHelper.java
                    ARGS frames ${out}/frames)
    add_test(NAME python_reader_check COMMAND ${CG_PYTHON3} ${d}/test_reader.py frames ${out}/frames)
    set_tests_properties(python_reader_frames PROPERTIES FIXTURES_SETUP cg_reader_frames)
    set_tests_properties(python_reader_check PROPERTIES LABELS python FIXTURES_REQUIRED cg_reader_frames
                         ENVIRONMENT PYTHONPATH=${pkg}:${d})
    if(NOT CG_WITH_PNG)
      set_tests_properties(python_reader_frames python_reader_check PROPERTIES DISABLED TRUE)
    endif()
    if(TARGET gltest)
      # The same jar, run with the GL helper library on java.library.path.
      cg_add_jvm_test(NAME python_reader_depth_frames MAIN cgtest.ReaderFrames LABELS python gl
                      SOURCES ${d}/ReaderFrames.java ${d}/ConsumerFrames.java
                              ${PROJECT_SOURCE_DIR}/tests/gl/GlHelper.java
                      NATIVE_DIRS $<TARGET_FILE_DIR:gltest> DEPENDS gltest
                      ARGS depth ${out}/depth)
      add_test(NAME python_reader_depth_check
               COMMAND ${CG_PYTHON3} ${d}/test_reader.py depth ${out}/depth)
      set_tests_properties(python_reader_depth_frames PROPERTIES FIXTURES_SETUP cg_reader_depth)
      set_tests_properties(python_reader_depth_check PROPERTIES LABELS "python;gl" SKIP_RETURN_CODE 77
                           FIXTURES_REQUIRED cg_reader_depth ENVIRONMENT PYTHONPATH=${pkg}:${d})
    endif()
  endif()
endif()

# The zero-copy frame on the GPU machine: test_cuda_vk (tests/cuda) exports a
# Vulkan image, imports it into CUDA and runs reader_cuda.py as the second
# process with the python3 on PATH (or $CG_PYTHON), as cuda_ipc_consumer does
# with consumer.py.
if(TARGET test_cuda_vk)
  add_test(NAME python_reader_cuda COMMAND test_cuda_vk ipc ${d}/reader_cuda.py)
  set_tests_properties(python_reader_cuda PROPERTIES LABELS "cuda;python" SKIP_RETURN_CODE 77
                       ENVIRONMENT PYTHONPATH=${pkg}:${d})
else()
  add_test(NAME python_reader_cuda COMMAND sh -c
           "echo 'python_reader_cuda: built without CUDA or Vulkan test support'; exit 77")
  set_tests_properties(python_reader_cuda PROPERTIES LABELS "cuda;python" SKIP_RETURN_CODE 77)
endif()
