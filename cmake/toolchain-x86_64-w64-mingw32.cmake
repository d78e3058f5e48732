# Cross build for 64-bit Windows with MinGW-w64 on a Debian x86-64 machine:
#   cmake -S . -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-x86_64-w64-mingw32.cmake \
#         -DCG_MINGW_DEPS=<prefix of MinGW builds of Check (scripts/build-check-mingw.sh)>
# Needs gcc-mingw-w64-x86-64 and wine64. Tests run under Wine
# (CMAKE_CROSSCOMPILING_EMULATOR), so `ctest -L cross` runs them here.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)

# Libraries and headers of the target only: MinGW's own root plus the
# folder where Check was built for it; programs (javac, protoc) are the host's.
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 ${CG_MINGW_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# try_compile reads this file again in the same process: hand it the folder,
# or it would point pkg-config at /lib/pkgconfig for the rest of the run.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CG_MINGW_DEPS)
if(CG_MINGW_DEPS)
  set(ENV{PKG_CONFIG_PATH} "")
  set(ENV{PKG_CONFIG_LIBDIR} "${CG_MINGW_DEPS}/lib/pkgconfig")
endif()

# C99 printf (%zu, %lld) from MinGW's own stdio: msvcrt.dll's has no %z.
set(CMAKE_C_FLAGS_INIT "-D__USE_MINGW_ANSI_STDIO=1")

# Link libgcc and winpthreads into each binary (-static: only archives, and
# Windows' own DLLs through their import archives): a DLL that needs
# libwinpthread-1.dll or libgcc_s_seh-1.dll next to it would not load in a
# player's JVM. -pthread puts the threads library after every other one.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -pthread")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static -pthread")

# Run target programs with Wine in a prefix of the build folder (its first
# start creates it: 14 s on the 2-core CI machine, then about 5 s per
# program); no debug chatter, no GUI.
find_program(CG_WINE64 NAMES wine64 PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(CG_WINE64)
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/env WINEPREFIX=${CMAKE_BINARY_DIR}/wineprefix
      WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml= DISPLAY= ${CG_WINE64})
endif()
