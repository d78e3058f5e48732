# The GL producer of zero-copy v2 (bench/zerocopy_gl_ring.c):
#   build/bench/bench_zerocopy_gl_ring [frames]
# host time per published frame at 640x360 and 1920x1080 (auto mode:
# semaphore on the GPU machine, fence on llvmpipe; fence forced; the bare
# GL pack as a floor; an RGB-D ring, its depth dispatch's GPU time against the
# RGB dispatch; v1 GL->CUDA where CUDA runs), medians and ratios to the
# CPU readback measured in the same run. scripts/gpu-tests.sh runs it.
if(NOT CG_HAVE_GL_RING OR NOT TARGET cg_gl_ring)
  return()
endif()
add_executable(bench_zerocopy_gl_ring ${CMAKE_CURRENT_LIST_DIR}/zerocopy_gl_ring.c)
target_link_libraries(bench_zerocopy_gl_ring PRIVATE cg_gl_ring cg_cuda cg_egl_headless)
cg_target_warnings(bench_zerocopy_gl_ring)
