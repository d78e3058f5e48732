# In a cross build (cmake/toolchain-*.cmake), the target cg_cross builds only
# what `ctest -L cross` runs and what ships: the core test programs (and
# the WGL test on Windows),
# libnative-lib, its natives jar and the local Maven repository of it, not the
# Java test jars or the generated protobuf classes. Included from the top-level CMakeLists.txt after tests/.
if(NOT CMAKE_CROSSCOMPILING)
  return()
endif()
set(cg_cross_deps)
foreach(dir tests/core tests/ship tests/wgl)
  if(EXISTS ${PROJECT_SOURCE_DIR}/${dir}/CMakeLists.txt AND CG_BUILD_TESTS)
    get_property(t DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} PROPERTY BUILDSYSTEM_TARGETS)
    list(APPEND cg_cross_deps ${t})
  endif()
endforeach()
foreach(t native-lib cg_natives_jar cg_maven_repo)
  if(TARGET ${t})
    list(APPEND cg_cross_deps ${t})
  endif()
endforeach()
add_custom_target(cg_cross)
if(cg_cross_deps)
  add_dependencies(cg_cross ${cg_cross_deps})
endif()
