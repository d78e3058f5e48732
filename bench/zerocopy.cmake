# Zero-copy benchmarks (bench/zerocopy_*.c), for the GPU machine:
#   build/bench/bench_zerocopy_vk [frames]   Vulkan -> CUDA, fence and semaphore paths
#   build/bench/bench_zerocopy_gl [frames]   GL -> CUDA, registered once vs every frame
# each next to the CPU readback path, every figure a median and a ratio to a
# plain D2D cudaMemcpy of the frame measured in the same run. Without a CUDA
# device they print "skipped". scripts/gpu-tests.sh runs them.
if(NOT CG_HAVE_CUDA)
  return()
endif()
if(TARGET vkt)
  add_executable(bench_zerocopy_vk ${CMAKE_CURRENT_LIST_DIR}/zerocopy_vk.c)
  target_link_libraries(bench_zerocopy_vk PRIVATE cg_vulkan cg_cuda vkt CUDA::cudart_static)
  cg_target_warnings(bench_zerocopy_vk)
endif()
add_executable(bench_zerocopy_gl ${CMAKE_CURRENT_LIST_DIR}/zerocopy_gl.c)
target_link_libraries(bench_zerocopy_gl PRIVATE cg_cuda cg_egl_headless CUDA::cudart_static)
cg_target_warnings(bench_zerocopy_gl)
