#!/bin/sh
# Install the build tree into an empty temporary prefix, then build and run
# the consumer against it twice: through find_package(minecraft_capture) and
# through pkg-config. Only the installed files are visible to the consumer.
# Usage: install_consumer.sh <build dir> <consumer source dir> <work dir> <cc> <cmake> <expect native-lib 0|1>
set -eu
build=$1 src=$2 work=$3 cc=$4 cmake=$5 native=$6
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log"
echo "== installed into $prefix:"
(cd "$prefix" && find . -type f | sort)

echo "== find_package(minecraft_capture)"
"$cmake" -S "$src" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DEXPECT_NATIVE_LIB="$native" >"$work/cmake-configure.log" ||
  { cat "$work/cmake-configure.log"; exit 1; }
grep "native-lib:" "$work/cmake-configure.log" || true
"$cmake" --build "$work/cmake-build" >"$work/cmake-build.log" ||
  { cat "$work/cmake-build.log"; exit 1; }
"$work/cmake-build/consumer"

echo "== pkg-config minecraft_capture"
# The file must be found where it was installed, not in the system's paths.
PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$(dirname "$(find "$prefix" -name minecraft_capture.pc)"):/usr/lib/$("$cc" -print-multiarch 2>/dev/null)/pkgconfig:/usr/lib/pkgconfig:/usr/share/pkgconfig
export PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
flags=$(pkg-config --cflags --libs minecraft_capture)
echo "pkg-config: $flags"
# shellcheck disable=SC2086  # the flags are words
"$cc" -std=c11 -o "$work/consumer-pc" "$src/consumer.c" $flags
"$work/consumer-pc"
