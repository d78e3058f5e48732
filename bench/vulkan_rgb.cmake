# GPU cost of the ring's RGB slot format against the plain copy
# (bench/vulkan_rgb.c), GPU timestamps, medians, ratio to the copy measured
# in the same run (target <= 1.5x) at 640x360 and 1920x1080:
#   build/bench/bench_vulkan_rgb [iters]
# Any Vulkan device with external memory; the figures mean something on the
# GPU machine (scripts/gpu-tests.sh runs it there). On lavapipe a short run
# is a ctest (vulkan_rgb_bench_path: the code path works, no timing limit).
if(NOT CG_HAVE_VK_RGB OR NOT TARGET vkt)
  return()
endif()
add_executable(bench_vulkan_rgb ${CMAKE_CURRENT_LIST_DIR}/vulkan_rgb.c)
target_link_libraries(bench_vulkan_rgb PRIVATE cg_vulkan vkt m)
target_include_directories(bench_vulkan_rgb PRIVATE ${PROJECT_SOURCE_DIR}/tests/vulkan)
cg_target_warnings(bench_vulkan_rgb)
add_test(NAME vulkan_rgb_bench_path COMMAND bench_vulkan_rgb 3)
set_tests_properties(vulkan_rgb_bench_path PROPERTIES LABELS vulkan SKIP_RETURN_CODE 77 TIMEOUT 120)
