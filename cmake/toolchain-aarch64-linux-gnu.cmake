# Cross build for 64-bit ARM Linux on a Debian x86-64 machine:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake
# Needs gcc-aarch64-linux-gnu, qemu-user-static and the arm64 multiarch
# -dev packages of the libraries (dpkg --add-architecture arm64;
# scripts/install-deps.sh --cross installs them). Tests run under qemu-user
# (CMAKE_CROSSCOMPILING_EMULATOR), so `ctest -L cross` runs them here.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Debian multiarch: the arm64 libraries lie in /usr/lib/aarch64-linux-gnu of
# this root; the x86-64 ones next door must never be picked.
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

# Run target programs with qemu; the loader and libc of the cross toolchain
# come from /usr/aarch64-linux-gnu, the multiarch libraries from the host's
# /usr/lib/aarch64-linux-gnu. CG_EXPECT_SIMD makes test_simd fail unless NEON
# is the level picked. CK_FORK=no: under qemu-user 7.2 (Debian 12) the child
# Check forks for each test spins forever (test_size: no result after 2
# minutes; 0.2 s without fork), so the suites run in one process there.
find_program(CG_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(CG_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/env CG_EXPECT_SIMD=neon CK_FORK=no
      ${CG_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
