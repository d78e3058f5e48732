# Install rules: what a C consumer or a mod's build needs from this project.
#
#   <prefix>/lib/libnative-lib.so                 the JNI library (CG_WITH_JNI)
#   <prefix>/lib/libminecraft_capture.a           the pixel core (convert, depth, PNG)
#   <prefix>/include/minecraft_capture/cg_*.h     its public headers
#   <prefix>/lib/cmake/minecraft_capture/         find_package(minecraft_capture CONFIG):
#       minecraft_capture::capture     static core, headers, link dependencies
#       minecraft_capture::native-lib  the JNI library (to locate or package it)
#   <prefix>/lib/pkgconfig/minecraft_capture.pc   pkg-config --cflags --libs minecraft_capture
#
# The installed core is one archive made of the objects of the internal core
# targets (CG_CORE_TARGETS, whichever of them exist), so the split of the
# sources into internal libraries can change without changing what is
# installed. Its link dependencies are collected from those targets:
# pkg-config imported targets become Requires of the .pc file and a
# pkg_check_modules() in the package config; plain names (dl, m) stay
# plain. Included from the top-level CMakeLists.txt after every subdirectory.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CG_CORE_TARGETS cg_common cg_frame)
set(CG_PUBLIC_HEADER_NAMES cg_frame.h cg_status.h cg_err.h cg_size.h cg_cursor.h cg_version.h)

set(cg_core_objects)
set(cg_core_dirs)
set(cg_core_present)
foreach(t ${CG_CORE_TARGETS})
  if(TARGET ${t})
    list(APPEND cg_core_present ${t})
    list(APPEND cg_core_objects $<TARGET_OBJECTS:${t}>)
    # Headers are in the source folder, or generated in the binary one
    # (cg_version.h).
    get_target_property(d ${t} SOURCE_DIR)
    get_target_property(b ${t} BINARY_DIR)
    list(APPEND cg_core_dirs ${d} ${b})
  endif()
endforeach()

# Public headers: each name of the list found in a core target's folder;
# names that do not exist (yet, or any more) are skipped.
set(cg_public_headers)
foreach(h ${CG_PUBLIC_HEADER_NAMES})
  foreach(d ${cg_core_dirs})
    if(EXISTS ${d}/${h})
      list(APPEND cg_public_headers ${d}/${h})
      break()
    endif()
  endforeach()
endforeach()

add_library(cg_capture STATIC ${cg_core_objects})
set_target_properties(cg_capture PROPERTIES
  OUTPUT_NAME minecraft_capture EXPORT_NAME capture LINKER_LANGUAGE C
  ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/install-core)
target_include_directories(cg_capture INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/minecraft_capture>)

# Link dependencies of the core, from the internal targets' link lists.
set(cg_pc_requires)      # pkg-config modules
set(cg_pc_libs)          # -lname
set(cg_cfg_modules)      # for the package config: "module" per entry
foreach(t ${cg_core_present})
  get_target_property(links ${t} LINK_LIBRARIES)
  if(NOT links)
    continue()
  endif()
  foreach(l ${links})
    if(l IN_LIST CG_CORE_TARGETS)
      continue()
    elseif(l MATCHES "^PkgConfig::(.+)$")
      set(mod "${${CMAKE_MATCH_1}_MODULE_NAME}")
      if(NOT mod)
        message(FATAL_ERROR "CgInstall: no pkg-config module name for ${l}")
      endif()
      list(APPEND cg_pc_requires ${mod})
      list(APPEND cg_cfg_modules ${mod})
      target_link_libraries(cg_capture INTERFACE
        $<INSTALL_INTERFACE:minecraft_capture_dep::${mod}>)
    elseif(l STREQUAL "Threads::Threads")
      # The PNG encoder's one-time library loading (pthread_once).
      list(APPEND cg_pc_libs -pthread)
      target_link_libraries(cg_capture INTERFACE -pthread)
    elseif(TARGET ${l})
      message(FATAL_ERROR "CgInstall: the core links ${l}, which is not installed; "
                          "add it to CG_CORE_TARGETS or make it a pkg-config dependency")
    elseif(l MATCHES "^-l")
      list(APPEND cg_pc_libs ${l})
      target_link_libraries(cg_capture INTERFACE ${l})
    elseif(l MATCHES "^[A-Za-z0-9_.+-]+$")
      list(APPEND cg_pc_libs -l${l})
      target_link_libraries(cg_capture INTERFACE ${l})
    else()
      message(FATAL_ERROR "CgInstall: cannot install the core's link item ${l}")
    endif()
  endforeach()
endforeach()
# cg_depth.c and friends may call libm; static consumers need it.
if(NOT WIN32 AND NOT APPLE)
  list(APPEND cg_pc_libs -lm)
  target_link_libraries(cg_capture INTERFACE m)
endif()
list(REMOVE_DUPLICATES cg_pc_requires)
list(REMOVE_DUPLICATES cg_pc_libs)
list(REMOVE_DUPLICATES cg_cfg_modules)

set(CG_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/minecraft_capture)
set(cg_targets cg_capture)
if(TARGET native-lib)
  list(APPEND cg_targets native-lib)
endif()
install(TARGETS ${cg_targets} EXPORT minecraft_capture_targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${cg_public_headers}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/minecraft_capture)
install(EXPORT minecraft_capture_targets NAMESPACE minecraft_capture::
        FILE minecraft_capture-targets.cmake DESTINATION ${CG_CMAKE_DIR})

set(CG_CONFIG_PKG_MODULES "${cg_cfg_modules}")
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/minecraft_capture-config.cmake.in
  ${CMAKE_BINARY_DIR}/install-core/minecraft_capture-config.cmake
  INSTALL_DESTINATION ${CG_CMAKE_DIR})
write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/install-core/minecraft_capture-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install-core/minecraft_capture-config.cmake
              ${CMAKE_BINARY_DIR}/install-core/minecraft_capture-config-version.cmake
        DESTINATION ${CG_CMAKE_DIR})

file(RELATIVE_PATH CG_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" CG_PC_TO_PREFIX "${CG_PC_TO_PREFIX}")
string(REPLACE ";" ", " CG_PC_REQUIRES "${cg_pc_requires}")
string(REPLACE ";" " " CG_PC_LIBS "${cg_pc_libs}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/minecraft_capture.pc.in
               ${CMAKE_BINARY_DIR}/install-core/minecraft_capture.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/install-core/minecraft_capture.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
