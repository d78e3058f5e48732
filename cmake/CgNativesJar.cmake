# The natives jar: libnative-lib for one OS and CPU inside a jar, the way Java
# game libraries ship native code (LWJGL's natives-linux jars), so a mod puts
# it on its classpath instead of asking players to set java.library.path.
#
#   <build>/minecraft-capture-natives-<os>-<arch>-<version>.jar
#     com/kyhsgeekcode/minecraftenv/natives/<os>-<arch>/<System.mapLibraryName("native-lib")>
#     META-INF/MANIFEST.MF        Implementation-Version, Minecraft-Capture-Platform, ...
#     META-INF/minecraft-capture/LICENSE, THIRD_PARTY_NOTICES.md
#
# os: linux, windows, macos; arch: x86_64, aarch64 (the names
# java-stubs/.../NativeLoader.java computes from os.name and os.arch). The
# resource lies under the stubs' package, not the generic natives/<os>-<arch>/,
# so another jar with that layout and a library of the same name cannot
# shadow it. NativeLoader.load() tries System.loadLibrary first, then extracts
# this resource to a per-user cache folder named by its SHA-256 and
# System.load()s it.
#
# Outside a cross build also the API jar (the compiled java-stubs: the
# natives' declarations and NativeLoader) and its sources:
#   <build>/minecraft-capture-api-<version>.jar, -sources.jar
#
# And a local Maven repository of them (cmake/CgMavenDeploy.cmake), with a
# POM and .md5/.sha1/.sha256 files each:
#   <build>/maven/com/kyhsgeekcode/<artifact>/<version>/<artifact>-<version>.{jar,pom}
#
# Defines the targets cg_natives_jar, cg_api_jar and cg_maven_repo (built by default) and
# the variables CG_NATIVES_PLATFORM, CG_NATIVES_ARTIFACT, CG_NATIVES_JAR (path
# of the jar), CG_API_JAR, CG_MAVEN_REPO, CG_MAVEN_GROUP.
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
set(CG_MAVEN_GROUP com.kyhsgeekcode)
set(CG_MAVEN_REPO ${CMAKE_BINARY_DIR}/maven)
set(CG_NATIVES_ARTIFACT minecraft-capture-natives-${CG_NATIVES_PLATFORM})
set(CG_NATIVES_JAR ${CMAKE_BINARY_DIR}/${CG_NATIVES_ARTIFACT}-${PROJECT_VERSION}.jar)
set(CG_API_JAR ${CMAKE_BINARY_DIR}/minecraft-capture-api-${PROJECT_VERSION}.jar)

include(GNUInstallDirs)
find_package(Java REQUIRED COMPONENTS Development)
set(cg_meta ${CMAKE_BINARY_DIR}/jar-meta)
set(cg_res com/kyhsgeekcode/minecraftenv/natives/${CG_NATIVES_PLATFORM})

# The licence files every jar carries, under a folder of its own (a mod that
# merges jars keeps them apart from its own LICENSE).
file(MAKE_DIRECTORY ${cg_meta}/legal/META-INF/minecraft-capture)
configure_file(${PROJECT_SOURCE_DIR}/LICENSE ${cg_meta}/legal/META-INF/minecraft-capture/LICENSE COPYONLY)
configure_file(${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md
               ${cg_meta}/legal/META-INF/minecraft-capture/THIRD_PARTY_NOTICES.md COPYONLY)

# cg_jar_meta_(<artifact> <name> <description> <manifest extra> <pom dependencies>)
# writes ${cg_meta}/<artifact>.MF and .pom (generator expressions allowed).
function(cg_jar_meta_ artifact name description extra deps)
  set(CG_POM_ARTIFACT ${artifact})
  set(CG_POM_NAME ${name})
  set(CG_POM_DESCRIPTION ${description})
  set(CG_MANIFEST_EXTRA ${extra})
  set(CG_POM_DEPENDENCIES ${deps})
  foreach(kind MANIFEST.MF pom.xml)
    string(REGEX REPLACE "^.*\\." "" ext ${kind})
    if(ext STREQUAL "xml")
      set(ext pom)
    endif()
    configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/maven/${kind}.in ${cg_meta}/${artifact}.${ext}.in @ONLY)
    file(GENERATE OUTPUT ${cg_meta}/${artifact}.${ext} INPUT ${cg_meta}/${artifact}.${ext}.in)
  endforeach()
endfunction()

cg_jar_meta_(${CG_NATIVES_ARTIFACT} "minecraft-capture natives ${CG_NATIVES_PLATFORM}"
  "libnative-lib of minecraft-capture for ${CG_NATIVES_PLATFORM}, loaded by NativeLoader from the classpath"
  "Minecraft-Capture-Platform: ${CG_NATIVES_PLATFORM}\nMinecraft-Capture-Library: ${cg_res}/$<TARGET_FILE_NAME:native-lib>\nAutomatic-Module-Name: com.kyhsgeekcode.minecraftcapture.natives.${cg_os}.${cg_arch}\n"
  "")
set(cg_stage ${CMAKE_BINARY_DIR}/natives-jar)
add_custom_command(
  OUTPUT ${CG_NATIVES_JAR}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${cg_stage} ${CG_NATIVES_JAR}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${cg_stage}/${cg_res}
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:native-lib> ${cg_stage}/${cg_res}/
  COMMAND ${Java_JAR_EXECUTABLE} --create --file ${CG_NATIVES_JAR}
          --manifest ${cg_meta}/${CG_NATIVES_ARTIFACT}.MF
          -C ${cg_meta}/legal META-INF -C ${cg_stage} com
  DEPENDS native-lib ${cg_meta}/${CG_NATIVES_ARTIFACT}.MF ${PROJECT_SOURCE_DIR}/LICENSE
          ${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md
  COMMENT "natives jar: ${CG_NATIVES_ARTIFACT}-${PROJECT_VERSION}.jar"
  VERBATIM)
add_custom_target(cg_natives_jar ALL DEPENDS ${CG_NATIVES_JAR})
install(FILES ${CG_NATIVES_JAR} DESTINATION ${CMAKE_INSTALL_DATADIR}/java OPTIONAL)

set(cg_deploy ${CMAKE_COMMAND} -DREPO=${CG_MAVEN_REPO} -DGROUP=${CG_MAVEN_GROUP}
    -DVERSION=${PROJECT_VERSION})
set(cg_deploy_script -P ${CMAKE_CURRENT_LIST_DIR}/CgMavenDeploy.cmake)   # last: -D after -P is ignored
string(REPLACE "." "/" cg_group_path ${CG_MAVEN_GROUP})
set(cg_repo_outputs
  ${CG_MAVEN_REPO}/${cg_group_path}/${CG_NATIVES_ARTIFACT}/${PROJECT_VERSION}/${CG_NATIVES_ARTIFACT}-${PROJECT_VERSION}.pom)
set(cg_repo_commands
  COMMAND ${cg_deploy} -DARTIFACT=${CG_NATIVES_ARTIFACT} -DJAR=${CG_NATIVES_JAR}
          -DPOM=${cg_meta}/${CG_NATIVES_ARTIFACT}.pom ${cg_deploy_script})
set(cg_repo_depends ${CG_NATIVES_JAR} ${cg_meta}/${CG_NATIVES_ARTIFACT}.pom)

# The API jar: the stubs' classes (cg_stubs, java-stubs/) with a manifest and
# the licence files; its POM needs protobuf-java (ByteString in the natives'
# signatures), at the version of the protobuf.jar it was compiled against.
if(NOT CMAKE_CROSSCOMPILING AND TARGET cg_stubs)
  set(cg_api minecraft-capture-api)
  if(NOT CG_PROTOBUF_JAVA_VERSION)
    execute_process(COMMAND dpkg-query -W -f=\${Version} libprotobuf-java
                    OUTPUT_VARIABLE cg_pbv ERROR_QUIET RESULT_VARIABLE cg_rc)
    string(REGEX MATCH "^[0-9]+\\.[0-9]+\\.[0-9]+" cg_pbv "${cg_pbv}")
    if(NOT cg_rc EQUAL 0 OR NOT cg_pbv)
      set(cg_pbv 3.21.12)
    endif()
    set(CG_PROTOBUF_JAVA_VERSION ${cg_pbv} CACHE STRING "protobuf-java version in the API jar's POM")
  endif()
  cg_jar_meta_(${cg_api} "minecraft-capture API"
    "Java declarations of the minecraft-capture natives (com.kyhsgeekcode.minecraftenv) and NativeLoader"
    "Automatic-Module-Name: com.kyhsgeekcode.minecraftcapture.api\n"
    "  <dependencies>\n    <dependency>\n      <groupId>com.google.protobuf</groupId>\n      <artifactId>protobuf-java</artifactId>\n      <version>${CG_PROTOBUF_JAVA_VERSION}</version>\n    </dependency>\n  </dependencies>\n")
  get_target_property(cg_stubs_jar cg_stubs JAR_FILE)
  set(cg_api_sources ${CMAKE_BINARY_DIR}/${cg_api}-${PROJECT_VERSION}-sources.jar)
  set(cg_api_stage ${CMAKE_BINARY_DIR}/api-jar)
  add_custom_command(
    OUTPUT ${CG_API_JAR} ${cg_api_sources}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${cg_api_stage} ${CG_API_JAR} ${cg_api_sources}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${cg_api_stage}
    COMMAND ${CMAKE_COMMAND} -E chdir ${cg_api_stage} ${Java_JAR_EXECUTABLE} --extract --file ${cg_stubs_jar}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${cg_api_stage}/META-INF
    COMMAND ${Java_JAR_EXECUTABLE} --create --file ${CG_API_JAR} --manifest ${cg_meta}/${cg_api}.MF
            -C ${cg_meta}/legal META-INF -C ${cg_api_stage} com
    COMMAND ${Java_JAR_EXECUTABLE} --create --file ${cg_api_sources} --no-manifest
            -C ${cg_meta}/legal META-INF -C ${PROJECT_SOURCE_DIR}/java-stubs/src com
    DEPENDS cg_stubs ${cg_stubs_jar} ${cg_meta}/${cg_api}.MF ${PROJECT_SOURCE_DIR}/LICENSE
            ${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md
    COMMENT "API jar: ${cg_api}-${PROJECT_VERSION}.jar"
    VERBATIM)
  add_custom_target(cg_api_jar ALL DEPENDS ${CG_API_JAR} ${cg_api_sources})
  list(APPEND cg_repo_outputs
    ${CG_MAVEN_REPO}/${cg_group_path}/${cg_api}/${PROJECT_VERSION}/${cg_api}-${PROJECT_VERSION}.pom)
  list(APPEND cg_repo_commands
    COMMAND ${cg_deploy} -DARTIFACT=${cg_api} -DJAR=${CG_API_JAR} -DPOM=${cg_meta}/${cg_api}.pom
            -DSOURCES=${cg_api_sources} ${cg_deploy_script})
  list(APPEND cg_repo_depends ${CG_API_JAR} ${cg_meta}/${cg_api}.pom)
  install(FILES ${CG_API_JAR} DESTINATION ${CMAKE_INSTALL_DATADIR}/java)
endif()
add_custom_command(OUTPUT ${cg_repo_outputs} ${cg_repo_commands}
  DEPENDS ${cg_repo_depends} ${CMAKE_CURRENT_LIST_DIR}/CgMavenDeploy.cmake
  COMMENT "local Maven repository: ${CG_MAVEN_REPO}"
  VERBATIM)
add_custom_target(cg_maven_repo ALL DEPENDS ${cg_repo_outputs})
# The jars are each one target's outputs: without these edges a parallel
# build ran the natives jar's command in both targets at once.
add_dependencies(cg_maven_repo cg_natives_jar)
if(TARGET cg_api_jar)
  add_dependencies(cg_maven_repo cg_api_jar)
endif()
unset(cg_os)
unset(cg_arch)
unset(cg_stage)
unset(cg_res)
