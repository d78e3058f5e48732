# CPU benchmarks of the pixel core (not a ctest test). Build, then run:
#   build/bench/bench_core          (or: cmake --build build --target run_bench_core)
# Every figure is a per-frame median and its ratio to a limit measured in the
# same run (see bench/bench_core.c).
add_executable(bench_core ${CMAKE_CURRENT_LIST_DIR}/bench_core.c)
target_link_libraries(bench_core PRIVATE cg_frame)
cg_target_warnings(bench_core)
add_custom_target(run_bench_core COMMAND bench_core USES_TERMINAL DEPENDS bench_core)
