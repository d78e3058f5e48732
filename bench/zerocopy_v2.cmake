# Zero-copy v2 against v1 (bench/zerocopy_v2.c), for the GPU machine:
#   build/bench/bench_zerocopy_v2 [steps] [max N]
# N game processes (N = 1, 4, 8, 16) + 1 learner in lockstep at 640x360 and
# 1920x1080: producer host time per frame, step time, aggregate frames/s,
# libcuda in the producers, their CUDA GPU memory; medians, ratios to a D2D
# cudaMemcpy of one frame measured in the same run and v2/v1. Without a
# CUDA device it prints "skipped". scripts/gpu-tests.sh runs it.
if(NOT CG_HAVE_CUDA OR NOT CG_HAVE_VK_RING OR NOT TARGET vkt)
  return()
endif()
add_executable(bench_zerocopy_v2 ${CMAKE_CURRENT_LIST_DIR}/zerocopy_v2.c)
target_link_libraries(bench_zerocopy_v2 PRIVATE cg_vulkan cg_cuda cg_egl_headless vkt
                      CUDA::cudart_static)
cg_target_warnings(bench_zerocopy_v2)
# -rdynamic: bench_prof.h names the library's functions in its samples.
set_target_properties(bench_zerocopy_v2 PROPERTIES ENABLE_EXPORTS ON)
# The GL producer of the ring (src/gl_ring), where it is built.
if(CG_HAVE_GL_RING)
  target_link_libraries(bench_zerocopy_v2 PRIVATE cg_gl_ring)
  target_compile_definitions(bench_zerocopy_v2 PRIVATE CG_BENCH_GL_RING=1)
endif()
