# CPU benchmarks of the pixel core (not a ctest test). Build, then run:
#   build/bench/bench_core          (or: cmake --build build --target run_bench_core)
# Every figure is a per-frame median and its ratio to a limit measured in the
# same run (see bench/bench_core.c).
add_executable(bench_core ${CMAKE_CURRENT_LIST_DIR}/bench_core.c)
target_link_libraries(bench_core PRIVATE cg_frame)
if(CG_WITH_PNG) # libpng's defaults are the PNG limit
  pkg_check_modules(CG_BENCH_LIBPNG REQUIRED IMPORTED_TARGET libpng)
  target_link_libraries(bench_core PRIVATE PkgConfig::CG_BENCH_LIBPNG)
  target_compile_definitions(bench_core PRIVATE CG_BENCH_LIBPNG=1)
  # the PNG encoder's passes are timed one by one (its internal header)
  target_include_directories(bench_core PRIVATE ${PROJECT_SOURCE_DIR}/src/frame_convert)

  # Other PNG encoders beside this one (`bench_core 1 png-peers`), none a
  # dependency: each is built from a source folder given here or in the
  # environment variable of the same name, and skipped by name otherwise.
  # fpnge and fpng are built for this CPU (-march=native), as their own
  # builds do. fpnge's build.sh compiles with clang++, so fpnge is compiled
  # with clang++ where one is found (here it ran about 7% faster than g++'s
  # build with the same flags: -1% to 13% over five alternations), else with
  # this project's C++ compiler; bench_core prints which. Their code is never
  # copied into the repository.
  foreach(peer FPNGE FPNG SPNG STB)
    if(NOT DEFINED CG_BENCH_${peer}_DIR AND DEFINED ENV{CG_BENCH_${peer}_DIR})
      set(CG_BENCH_${peer}_DIR "$ENV{CG_BENCH_${peer}_DIR}")
    endif()
    set(CG_BENCH_${peer}_DIR "${CG_BENCH_${peer}_DIR}" CACHE PATH
        "source folder of a PNG encoder bench_core compares with (empty: skipped)")
  endforeach()
  add_library(bench_png_peers STATIC ${CMAKE_CURRENT_LIST_DIR}/png_peers.c)
  target_include_directories(bench_png_peers PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(bench_core PRIVATE bench_png_peers)
  set(cg_peer_cxx "")
  set(cg_peer_flags -O3 -march=native) # the C++ peers', as their builds use
  string(JOIN " " cg_peer_flags_text ${cg_peer_flags})
  if(CG_BENCH_FPNGE_DIR AND EXISTS "${CG_BENCH_FPNGE_DIR}/fpnge.cc")
    find_program(CG_BENCH_CLANGXX clang++)
    if(CG_BENCH_CLANGXX)
      set(cg_fpnge_obj ${CMAKE_CURRENT_BINARY_DIR}/fpnge_clang.o)
      add_custom_command(OUTPUT ${cg_fpnge_obj}
        COMMAND ${CG_BENCH_CLANGXX} ${cg_peer_flags} -w -c ${CG_BENCH_FPNGE_DIR}/fpnge.cc
                -o ${cg_fpnge_obj}
        DEPENDS ${CG_BENCH_FPNGE_DIR}/fpnge.cc ${CG_BENCH_FPNGE_DIR}/fpnge.h VERBATIM)
      list(APPEND cg_peer_cxx ${cg_fpnge_obj})
      set(cg_fpnge_built "clang++ ${cg_peer_flags_text}, as its build.sh")
    else()
      list(APPEND cg_peer_cxx "${CG_BENCH_FPNGE_DIR}/fpnge.cc")
      set(cg_fpnge_built
          "the C++ compiler ${cg_peer_flags_text} (its build.sh uses clang++: none found)")
    endif()
    set(cg_peer_fpnge ON)
  endif()
  if(CG_BENCH_FPNG_DIR AND EXISTS "${CG_BENCH_FPNG_DIR}/src/fpng.cpp")
    list(APPEND cg_peer_cxx "${CG_BENCH_FPNG_DIR}/src/fpng.cpp")
    set(cg_peer_fpng ON)
  endif()
  if(cg_peer_cxx)
    enable_language(CXX)
    add_library(bench_png_peers_cxx STATIC ${CMAKE_CURRENT_LIST_DIR}/png_peers_cxx.cc
                                           ${cg_peer_cxx})
    target_include_directories(bench_png_peers_cxx PRIVATE ${CMAKE_CURRENT_LIST_DIR})
    target_compile_options(bench_png_peers_cxx PRIVATE ${cg_peer_flags} -w)
    if(cg_peer_fpnge)
      target_include_directories(bench_png_peers_cxx PRIVATE ${CG_BENCH_FPNGE_DIR})
      target_compile_definitions(bench_png_peers_cxx PRIVATE CG_BENCH_FPNGE=1)
      target_compile_definitions(bench_png_peers PRIVATE CG_BENCH_FPNGE=1
                                 CG_BENCH_FPNGE_BUILT="${cg_fpnge_built}")
    endif()
    if(cg_peer_fpng)
      target_include_directories(bench_png_peers_cxx PRIVATE ${CG_BENCH_FPNG_DIR}/src)
      target_compile_definitions(bench_png_peers_cxx PRIVATE CG_BENCH_FPNG=1)
      target_compile_definitions(bench_png_peers PRIVATE CG_BENCH_FPNG=1)
    endif()
    target_link_libraries(bench_png_peers PRIVATE bench_png_peers_cxx)
  endif()
  if(CG_BENCH_SPNG_DIR)
    find_path(cg_spng_inc spng.h PATHS ${CG_BENCH_SPNG_DIR}/spng ${CG_BENCH_SPNG_DIR}
              NO_DEFAULT_PATH)
    pkg_check_modules(CG_BENCH_ZLIB IMPORTED_TARGET zlib)
    if(cg_spng_inc AND CG_BENCH_ZLIB_FOUND)
      target_sources(bench_png_peers PRIVATE ${cg_spng_inc}/spng.c)
      set_source_files_properties(${cg_spng_inc}/spng.c PROPERTIES COMPILE_OPTIONS "-O2;-w")
      target_include_directories(bench_png_peers PRIVATE ${cg_spng_inc})
      target_compile_definitions(bench_png_peers PRIVATE CG_BENCH_SPNG=1 SPNG_STATIC=1)
      target_link_libraries(bench_png_peers PRIVATE PkgConfig::CG_BENCH_ZLIB m)
    endif()
  endif()
  if(CG_BENCH_STB_DIR AND EXISTS "${CG_BENCH_STB_DIR}/stb_image_write.h")
    target_include_directories(bench_png_peers PRIVATE ${CG_BENCH_STB_DIR})
    target_compile_definitions(bench_png_peers PRIVATE CG_BENCH_STB=1)
  endif()
endif()
target_compile_definitions(bench_core PRIVATE
  CG_BENCH_CORPUS="${CMAKE_CURRENT_LIST_DIR}/corpus")
cg_target_warnings(bench_core)
add_custom_target(run_bench_core COMMAND bench_core USES_TERMINAL DEPENDS bench_core)
