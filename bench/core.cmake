# CPU benchmarks of the pixel core (not a ctest test). Build, then run:
#   build/bench/bench_core          (or: cmake --build build --target run_bench_core)
# Every figure is a per-frame median and its ratio to a limit measured in the
# same run (see bench/bench_core.c).
add_executable(bench_core ${CMAKE_CURRENT_LIST_DIR}/bench_core.c)
target_link_libraries(bench_core PRIVATE cg_frame)
if(CG_WITH_PNG) # libpng's defaults are the PNG limit
  pkg_check_modules(CG_BENCH_LIBPNG REQUIRED IMPORTED_TARGET libpng)
  target_link_libraries(bench_core PRIVATE PkgConfig::CG_BENCH_LIBPNG)
  target_compile_definitions(bench_core PRIVATE CG_BENCH_LIBPNG=1)
  # the PNG encoder's passes are timed one by one (its internal header)
  target_include_directories(bench_core PRIVATE ${PROJECT_SOURCE_DIR}/src/frame_convert)
endif()
target_compile_definitions(bench_core PRIVATE
  CG_BENCH_CORPUS="${CMAKE_CURRENT_LIST_DIR}/corpus")
cg_target_warnings(bench_core)
add_custom_target(run_bench_core COMMAND bench_core USES_TERMINAL DEPENDS bench_core)
