# The natives jar: libnative-lib for one OS and CPU inside a jar, the way Java
# game libraries ship native code (LWJGL's natives-linux jars), so a mod puts
# it on its classpath instead of asking players to set java.library.path.
#
#   <build>/minecraft_capture-natives-<os>-<arch>.jar
#     natives/<os>-<arch>/<System.mapLibraryName("native-lib")>
#
# os: linux, windows, macos; arch: x86_64, aarch64 (the names
# java-stubs/.../NativeLoader.java computes from os.name and os.arch).
# NativeLoader.load() tries System.loadLibrary first, then extracts this
# resource to a per-user cache folder named by its SHA-256 and System.load()s it.
#
# Defines the target cg_natives_jar (built by default) and the variables
# CG_NATIVES_PLATFORM, CG_NATIVES_JAR (path of the jar).
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(cg_os linux)
elseif(CMAKE_SYSTEM_NAME STREQUAL "Windows")
  set(cg_os windows)
elseif(CMAKE_SYSTEM_NAME STREQUAL "Darwin")
  set(cg_os macos)
else()
  string(TOLOWER "${CMAKE_SYSTEM_NAME}" cg_os)
endif()
string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" cg_arch)
if(cg_arch MATCHES "^(x86_64|amd64|x64)$")
  set(cg_arch x86_64)
elseif(cg_arch MATCHES "^(aarch64|arm64)$")
  set(cg_arch aarch64)
endif()
set(CG_NATIVES_PLATFORM ${cg_os}-${cg_arch})
set(CG_NATIVES_JAR ${CMAKE_BINARY_DIR}/minecraft_capture-natives-${CG_NATIVES_PLATFORM}.jar)

include(GNUInstallDirs)
find_package(Java REQUIRED COMPONENTS Development)
set(cg_stage ${CMAKE_BINARY_DIR}/natives-jar)
set(cg_res natives/${CG_NATIVES_PLATFORM})
add_custom_command(
  OUTPUT ${CG_NATIVES_JAR}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${cg_stage}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${cg_stage}/${cg_res}
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:native-lib> ${cg_stage}/${cg_res}/
  COMMAND ${Java_JAR_EXECUTABLE} --create --no-manifest --file ${CG_NATIVES_JAR} -C ${cg_stage} natives
  DEPENDS native-lib
  COMMENT "natives jar: minecraft_capture-natives-${CG_NATIVES_PLATFORM}.jar"
  VERBATIM)
add_custom_target(cg_natives_jar ALL DEPENDS ${CG_NATIVES_JAR})
install(FILES ${CG_NATIVES_JAR} DESTINATION ${CMAKE_INSTALL_DATADIR}/java OPTIONAL)
unset(cg_os)
unset(cg_arch)
unset(cg_stage)
unset(cg_res)
