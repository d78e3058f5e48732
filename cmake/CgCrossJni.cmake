# JNI headers for a cross build (included by jni/CMakeLists.txt when
# CMAKE_CROSSCOMPILING): the build machine's JDK provides jni.h, which is the
# same for every target. Its include/linux/jni_md.h fits any Linux target
# (aarch64 included); Windows needs cmake/win32/jni_md.h instead, where
# JNIEXPORT is __declspec(dllexport) and jlong is 64-bit (long is 32-bit on
# Windows). Sets JNI_INCLUDE_DIRS.
if(NOT JAVA_HOME AND DEFINED ENV{JAVA_HOME})
  set(JAVA_HOME $ENV{JAVA_HOME})
endif()
find_path(CG_JNI_H jni.h PATHS ${JAVA_HOME}/include NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
if(NOT CG_JNI_H)
  message(FATAL_ERROR "jni.h not found under JAVA_HOME=${JAVA_HOME}/include")
endif()
if(WIN32)
  set(JNI_INCLUDE_DIRS ${CMAKE_CURRENT_LIST_DIR}/win32 ${CG_JNI_H})
else()
  set(JNI_INCLUDE_DIRS ${CG_JNI_H} ${CG_JNI_H}/linux)
endif()
message(STATUS "capture: JNI headers for ${CMAKE_SYSTEM_NAME}: ${JNI_INCLUDE_DIRS}")
