# End-to-end benchmark of the observation path (bench/e2e/, issue 27 item 4):
# N game JVMs (cgbench.E2eGame + libe2e_game, the game's Vulkan side) capture
# through the real natives and step with one Python learner (e2e_bench.py):
#   python3 bench/e2e/e2e_bench.py --game build/bench/bench_e2e_game [options]
# docs/benchmarks.md, "End to end", has the GPU machine's command. The ctest
# bench_e2e_smoke runs it at N = 1, 2, 32x32, a few steps (lavapipe, fence
# mode, the stand-in libcuda): every mode and column printed, every batch the
# scene, no timing limit; bench_e2e_validation the same under the validation
# layer. bench/e2e/soak.py (its games: bench_e2e_soak_game) is the soak:
# free-running games, one learner, resizes, kills, stalls, checked every step.
if(NOT CG_WITH_JNI OR NOT TARGET vkt OR NOT CG_GLSLANG OR NOT CG_HAVE_VK_RING)
  return()
endif()
set(cg_e2e_spv ${CMAKE_CURRENT_BINARY_DIR}/e2e-spirv)
file(MAKE_DIRECTORY ${cg_e2e_spv})
add_custom_command(
  OUTPUT ${cg_e2e_spv}/e2e_render.spv.h
  COMMAND ${CMAKE_COMMAND} -P ${PROJECT_SOURCE_DIR}/src/vulkan/glslang_quiet.cmake --
          ${CG_GLSLANG} -V -S comp --vn e2e_render_spv -o ${cg_e2e_spv}/e2e_render.spv.h
          ${CMAKE_CURRENT_LIST_DIR}/e2e/e2e_render.comp
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/e2e/e2e_render.comp
  COMMENT "glslangValidator: e2e_render.comp -> SPIR-V header"
  VERBATIM)
add_library(e2e_game SHARED ${CMAKE_CURRENT_LIST_DIR}/e2e/e2e_game_jni.c
            ${cg_e2e_spv}/e2e_render.spv.h)
target_include_directories(e2e_game PRIVATE ${JAVA_INCLUDE_PATH} ${JAVA_INCLUDE_PATH2}
                           ${cg_e2e_spv})
target_link_libraries(e2e_game PRIVATE vkt)
cg_target_warnings(e2e_game)
cg_add_java_program(NAME bench_e2e_game MAIN cgbench.E2eGame
                    SOURCES ${CMAKE_CURRENT_LIST_DIR}/e2e/E2eGame.java
                    NATIVE_DIRS $<TARGET_FILE_DIR:e2e_game> DEPENDS e2e_game
                    # N of them on the machine: no parallel GC threads each.
                    JAVA_OPTS -XX:+UseSerialGC -Xmx512m)
# The soak's free-running games (bench/e2e/soak.py, issue 43): one loop (SoakLoop), a Vulkan
# backend on E2eGame's render and, where the GL ring is built, a GL one on tests/gl's helper.
set(cg_soak_java ${CMAKE_CURRENT_LIST_DIR}/e2e/E2eGame.java
    ${CMAKE_CURRENT_LIST_DIR}/e2e/SoakLoop.java ${CMAKE_CURRENT_LIST_DIR}/e2e/SoakGame.java)
cg_add_java_program(NAME bench_e2e_soak_game MAIN cgbench.SoakGame SOURCES ${cg_soak_java}
                    NATIVE_DIRS $<TARGET_FILE_DIR:e2e_game> DEPENDS e2e_game
                    JAVA_OPTS -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx256m)
set(cg_soak_gl_args)
if(CG_HAVE_GL_RING AND TARGET gltest)
  cg_add_java_program(NAME bench_e2e_soak_gl_game MAIN cgtest.SoakGlGame
                      SOURCES ${cg_soak_java} ${CMAKE_CURRENT_LIST_DIR}/e2e/SoakGlGame.java
                              ${PROJECT_SOURCE_DIR}/tests/gl/GlHelper.java
                      NATIVE_DIRS $<TARGET_FILE_DIR:e2e_game> $<TARGET_FILE_DIR:gltest>
                      DEPENDS e2e_game gltest
                      JAVA_OPTS -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx256m)
  set(cg_soak_gl_args --gl-game ${bench_e2e_soak_gl_game_SCRIPT} --gl-games 1)
endif()
if(CG_PYTHON3 AND TARGET fake_cuda_ext)
  add_test(NAME bench_e2e_smoke
           COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/e2e/e2e_bench.py
                   --game ${bench_e2e_game_SCRIPT} --envs 1,2 --sizes 32x32 --costs 0.05
                   --steps 6 --rounds 2 --warmup 2 --sync fence --policy numpy --check)
  set(cg_e2e_env "PYTHONPATH=${PROJECT_SOURCE_DIR}/python"
                 "CRAFTGROUND_CAPTURE_LIBCUDA=$<TARGET_FILE:fake_cuda_ext>")
  set_tests_properties(bench_e2e_smoke PROPERTIES LABELS "vulkan;jvm;python"
                       SKIP_RETURN_CODE 77 TIMEOUT 600 ENVIRONMENT "${cg_e2e_env}")
  # The same under the Khronos validation layer with synchronization validation
  # (tests/vulkan/validate.sh): the games' render, readback and every capture
  # mode's recording, no message allowed.
  add_test(NAME bench_e2e_validation
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/vulkan/validate.sh ${CG_PYTHON3}
                   ${CMAKE_CURRENT_LIST_DIR}/e2e/e2e_bench.py --game ${bench_e2e_game_SCRIPT}
                   --envs 1,2 --sizes 32x32 --costs 0.05 --steps 2 --rounds 1 --warmup 1
                   --sync fence --policy numpy --check)
  set_tests_properties(bench_e2e_validation PROPERTIES LABELS "vulkan;jvm;python"
                       SKIP_RETURN_CODE 77 TIMEOUT 600 ENVIRONMENT "${cg_e2e_env}")
  # The soak's short version (bench/e2e/soak.py, issue 43): 4 free-running games in fence
  # mode (the first with a depth plane, the last GL where the GL ring is built), one learner (numpy policy, the stand-in libcuda), every event of the schedule in
  # a minute; asserted: 0 wrong rows, 0 unasked deaths, every row new again within 6 learner
  # steps of each event, the second learner refused, fds flat, no socket left. Its oracle's
  # self-test first: every kind of wrong row is caught.
  add_test(NAME bench_e2e_soak_oracle
           COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/e2e/soak.py selftest)
  set_tests_properties(bench_e2e_soak_oracle PROPERTIES LABELS "python" TIMEOUT 60)
  add_test(NAME bench_e2e_soak
           COMMAND ${CG_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/e2e/soak.py
                   --game ${bench_e2e_soak_game_SCRIPT} ${cg_soak_gl_args} --games 4
                   --depth-games 1
                   --render 320x180 --resize-to 256x144,384x216,320x180 --obs 32x32
                   --duration 60 --warmup 8 --cooldown 6 --hz 30 --kills 2 --sync fence
                   --policy numpy --new-within 6 --check)
  set(cg_soak_labels vulkan jvm python)
  if(cg_soak_gl_args)
    list(APPEND cg_soak_labels gl)
  endif()
  set_tests_properties(bench_e2e_soak PROPERTIES LABELS "${cg_soak_labels}"
                       SKIP_RETURN_CODE 77 TIMEOUT 180 ENVIRONMENT "${cg_e2e_env}")
endif()
