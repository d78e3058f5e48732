#!/usr/bin/env bash
# Build the Check unit-test library for Windows x64 (MinGW-w64), which Debian
# does not package, from Debian's own source package, into <prefix>:
#   <prefix>/lib/libcheck.a, <prefix>/include/check.h, <prefix>/lib/pkgconfig/check.pc
# The source comes through apt with a private list of deb-src lines (the
# machine's apt configuration is left alone) and is verified by apt against
# Debian's signed index. Does nothing when <prefix> already holds the library.
# Usage: bash scripts/build-check-mingw.sh <prefix> [jobs]
set -euo pipefail
prefix=$(realpath -m "$1")
jobs=${2:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ -f $prefix/lib/libcheck.a && -f $prefix/lib/pkgconfig/check.pc ]]; then
  exit 0
fi
work=$prefix-work
rm -rf "$work"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/src"
echo "deb-src http://deb.debian.org/debian bookworm main" >"$work/apt/sources.list"
apt_opts=(-q -o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=$work/apt/none"
          -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
          -o "APT::Sandbox::User=root")
echo "build-check-mingw: fetching Debian's source of check"
apt-get "${apt_opts[@]}" update >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; exit 1; }
(cd "$work" && apt-get "${apt_opts[@]}" source --download-only check >>"$work/apt.log" 2>&1) ||
  { cat "$work/apt.log"; exit 1; }
tar xzf "$work"/check_*.orig.tar.gz -C "$work/src" --strip-components=1

echo "build-check-mingw: building the static library with MinGW-w64"
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchain-x86_64-w64-mingw32.cmake" \
  -DBUILD_TESTING=OFF -DCHECK_ENABLE_TESTS=OFF >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" --target check -j"$jobs" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; exit 1; }

version=$(basename "$work"/check_*.orig.tar.gz)
version=${version#check_}
version=${version%.orig.tar.gz}
mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
cp "$work/build/src/libcheck.a" "$prefix/lib/"
cp "$work/build/src/check.h" "$work/build/check_stdint.h" "$prefix/include/"
cat >"$prefix/lib/pkgconfig/check.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: Check
Description: A unit test framework for C (static, MinGW-w64, built from Debian's source)
Version: $version
Libs: -L\${libdir} -lcheck
Cflags: -I\${includedir}
PC
rm -rf "$work"
echo "build-check-mingw: $prefix/lib/libcheck.a"
