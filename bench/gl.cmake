# GL readback benchmark (bench/gl_readback.c): synchronous vs pack-buffer ring,
# as ratios to a plain glReadPixels measured in the same run.
# Run: build/bench/bench_gl [frames per figure]   or   cmake --build build --target run_bench_gl
add_executable(bench_gl ${CMAKE_CURRENT_LIST_DIR}/gl_readback.c)
target_link_libraries(bench_gl PRIVATE cg_gl cg_egl_headless)
cg_target_warnings(bench_gl)
add_custom_target(run_bench_gl COMMAND bench_gl USES_TERMINAL DEPENDS bench_gl)
