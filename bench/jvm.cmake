# JVM end-to-end benchmark of convertCapturedFrameImpl (bench/jvm/).
# Build, then run:  build/bench/bench_jvm [rounds]   or   cmake --build build --target run_bench_jvm
# libcg_bench_limit.so is a bench-only JNI library giving the same-run limit.
if(NOT CG_WITH_JNI)
  return()
endif()
add_library(bench_limit SHARED ${CMAKE_CURRENT_LIST_DIR}/jvm/bench_limit.c)
# jni/ ran find_package(JNI); its include paths are cache variables.
target_include_directories(bench_limit PRIVATE ${JAVA_INCLUDE_PATH} ${JAVA_INCLUDE_PATH2})
cg_target_warnings(bench_limit)
cg_add_java_program(NAME bench_jvm MAIN cgbench.JvmBench
                    SOURCES ${CMAKE_CURRENT_LIST_DIR}/jvm/JvmBench.java ${CMAKE_CURRENT_LIST_DIR}/jvm/Limit.java
                    NATIVE_DIRS $<TARGET_FILE_DIR:bench_limit>
                    DEPENDS bench_limit
                    # A fixed, pre-touched heap: as in a long-running game, the
                    # young generation's pages are already mapped, so neither
                    # side of the ratio pays first-touch page faults.
                    JAVA_OPTS -Xms512m -Xmx512m -XX:+AlwaysPreTouch)
add_custom_target(run_bench_jvm COMMAND ${bench_jvm_SCRIPT} USES_TERMINAL
                  DEPENDS bench_jvm_jar bench_limit)
