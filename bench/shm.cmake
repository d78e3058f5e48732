# Shared-memory channel round trip vs the same bytes over a Unix socketpair
# (bench/shm/). Build, then run:
#   build/bench/bench_shm [rounds]   or   cmake --build build --target run_bench_shm
if(NOT CG_WITH_JNI)
  return()
endif()
find_package(Threads REQUIRED)
add_executable(shm_bench_peer ${CMAKE_CURRENT_LIST_DIR}/shm/shm_bench_peer.c)
target_link_libraries(shm_bench_peer PRIVATE Threads::Threads)
if(CG_LIBRT)
  target_link_libraries(shm_bench_peer PRIVATE ${CG_LIBRT})
endif()
cg_target_warnings(shm_bench_peer)
cg_add_java_program(NAME bench_shm MAIN cgbench.ShmBench
                    SOURCES ${CMAKE_CURRENT_LIST_DIR}/shm/ShmBench.java
                    DEPENDS shm_bench_peer
                    JAVA_OPTS -Xms512m -Xmx512m -XX:+AlwaysPreTouch
                              -Dcg.shm.peer=$<TARGET_FILE:shm_bench_peer>)
add_custom_target(run_bench_shm COMMAND ${bench_shm_SCRIPT} USES_TERMINAL
                  DEPENDS bench_shm_jar shm_bench_peer)
