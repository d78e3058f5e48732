# cmake -P glslang_quiet.cmake -- <glslangValidator> <arguments>
# Runs glslangValidator and shows its output only when it fails: on success
# it prints the shader's path (once per run, in every build), and it prints
# its errors on stdout too, so they go to stderr here with the exit status.
set(cmd)
set(take OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(take)
    list(APPEND cmd "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} STREQUAL "--")
    set(take ON)
  endif()
endforeach()
execute_process(COMMAND ${cmd} OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  list(JOIN cmd " " shown)
  message(FATAL_ERROR "${shown} failed (${rc}):\n${out}")
endif()
