# Shared-memory channel step vs the same bytes over a Unix SocketChannel
# between the same two processes (bench/shm/). Build, then run:
#   build/bench/bench_shm [rounds [peer command...]]
# or `cmake --build build --target run_bench_shm` (the C peer, then the
# Python peer with a kept j2p mapping, then the predecessor's re-mapping
# reader, then CraftGround's own peer as it behaves: tests/shm's
# predecessor_peer.c, semaphores its own, nothing mapped between calls).
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
find_program(CG_BENCH_PYTHON3 NAMES python3)
set(cg_shm_py ${CMAKE_CURRENT_LIST_DIR}/shm/shm_bench_peer.py)
# CraftGround's own peer needs tests/shm's cg_predecessor_peer, built only
# with the tests: without them that step says so instead of breaking the
# configure of a bench-only build.
if(TARGET cg_predecessor_peer)
  set(cg_shm_own_peer COMMAND ${CMAKE_COMMAND} -E env
      CG_SHM_PEER_LIB=$<TARGET_FILE:cg_predecessor_peer>
      ${bench_shm_SCRIPT} 2000 ${CG_BENCH_PYTHON3} ${cg_shm_py} predecessor)
  set(cg_shm_own_peer_dep cg_predecessor_peer)
else()
  set(cg_shm_own_peer COMMAND ${CMAKE_COMMAND} -E echo
      "run_bench_shm: the step with CraftGround as its peer skipped, it needs CG_BUILD_TESTS=ON")
  set(cg_shm_own_peer_dep "")
endif()
add_custom_target(run_bench_shm COMMAND ${bench_shm_SCRIPT} 2000
                  COMMAND ${bench_shm_SCRIPT} 2000 ${CG_BENCH_PYTHON3} ${cg_shm_py} kept
                  COMMAND ${bench_shm_SCRIPT} 2000 ${CG_BENCH_PYTHON3} ${cg_shm_py} remap
                  ${cg_shm_own_peer}
                  USES_TERMINAL DEPENDS bench_shm_jar shm_bench_peer ${cg_shm_own_peer_dep})
