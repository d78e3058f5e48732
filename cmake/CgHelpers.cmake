# Helpers every folder's CMakeLists.txt uses. Included once by the top level.

# Warnings apply to our own targets only (generated protobuf-c code is exempt).
set(CG_WARNINGS -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
    -Wformat=2 -Wundef -Wvla -Wpointer-arith)
if(MINGW)
  # GCC for MinGW checks format(printf) attributes against msvcrt's printf
  # (no %zu), although __USE_MINGW_ANSI_STDIO (cmake/toolchain-x86_64-w64-mingw32.cmake)
  # routes the calls to MinGW's C99 one; Linux builds check the same strings.
  list(APPEND CG_WARNINGS -Wno-format)
endif()
if(CG_WERROR)
  list(APPEND CG_WARNINGS -Werror)
endif()

function(cg_target_warnings tgt)
  target_compile_options(${tgt} PRIVATE ${CG_WARNINGS})
endfunction()

# cg_add_library(<name> SOURCES <files> [DEPS <targets>] [PRIVATE_DEPS <targets>])
# A static PIC library of this folder: its folder is the public include path,
# DEPS are linked PUBLIC (their headers appear in ours), PRIVATE_DEPS not.
function(cg_add_library name)
  cmake_parse_arguments(A "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  if(A_DEPS)
    target_link_libraries(${name} PUBLIC ${A_DEPS})
  endif()
  if(A_PRIVATE_DEPS)
    target_link_libraries(${name} PRIVATE ${A_PRIVATE_DEPS})
  endif()
  cg_target_warnings(${name})
endfunction()

# cg_add_test_exe(<ctest name> SOURCES <files> LIBS <targets> LABELS <labels>
#                 [TIMEOUT <s>] [SKIP77])
# A C test executable registered with ctest. SKIP77: exit code 77 means
# SKIPPED (hardware this machine lacks).
function(cg_add_test_exe name)
  cmake_parse_arguments(A "SKIP77" "TIMEOUT;TARGET" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT A_TARGET)
    set(A_TARGET ${name})
  endif()
  add_executable(${A_TARGET} ${A_SOURCES})
  target_link_libraries(${A_TARGET} PRIVATE ${A_LIBS})
  cg_target_warnings(${A_TARGET})
  add_test(NAME ${name} COMMAND ${A_TARGET})
  set_tests_properties(${name} PROPERTIES LABELS "${A_LABELS}")
  if(A_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${A_TIMEOUT})
  endif()
  if(A_SKIP77)
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endfunction()
