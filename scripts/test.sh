#!/usr/bin/env bash
# The test command: install what is missing, build everything, run every test
# through ctest, the core tests again under AddressSanitizer + UBSan, a timed
# libFuzzer run of each fuzz target (clang, label fuzz), then the aarch64
# (qemu-user) and Windows (Wine) cross builds' core tests.
# Usage (as root on Debian 12): bash scripts/test.sh   (-h, --help: this text)
# Environment: JOBS (parallel jobs, default nproc), CG_CROSS=0 (no cross builds).
# Temporary files of the run go to one folder, removed at the end.
set -euo pipefail
case ${1:-} in
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  '') ;;
  *) echo "test.sh: no arguments expected, got '$*' (see --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

# Everything the tests write under TMPDIR (mktemp, Python's tempfile, the
# rings' socket folder where XDG_RUNTIME_DIR is unset) lands in one folder
# that goes when the run ends; what still appears in /tmp is reported.
tmp_before=$(ls -A /tmp | sort)
TMPDIR=$(mktemp -d /tmp/cg-test-run.XXXXXX)
export TMPDIR
report_tmp() {
  rm -rf "$TMPDIR"
  local left
  left=$(comm -13 <(echo "$tmp_before") <(ls -A /tmp | sort) | grep -vE '^\.(X11-unix|X[0-9]+-lock|wine-[0-9]+)$' || true)
  [ -z "$left" ] || echo "test.sh: left in /tmp by the run (or by another process meanwhile): $(echo $left)"
}
trap report_tmp EXIT

# The test profile; with the cross builds (the default) the cross one, which includes it.
if [[ ${CG_CROSS:-1} == 0 ]]; then bash scripts/install-deps.sh test; else bash scripts/install-deps.sh cross; fi

echo "== build (Release, warnings as errors)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCG_WERROR=ON >/dev/null
cmake --build build -j"$JOBS"

echo "== build (AddressSanitizer + UndefinedBehaviorSanitizer, core tests)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCG_WERROR=ON \
  -DCG_SANITIZE=address,undefined -DCG_WITH_CUDA=OFF -DCG_WITH_JNI=OFF \
  -DCG_BUILD_BENCH=OFF -DCG_BUILD_DEMO=OFF >/dev/null
cmake --build build-asan -j"$JOBS"

echo "== build (clang: libFuzzer targets, library instrumented, ASan + UBSan)"
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCG_WERROR=ON \
  -DCG_SANITIZE=address,undefined,fuzzer-no-link -DCG_WITH_CUDA=OFF -DCG_WITH_JNI=OFF \
  -DCG_BUILD_BENCH=OFF -DCG_BUILD_DEMO=OFF >/dev/null
# With the fuzz targets, the library's other parts the fuzzers do not link (GL, the GL ring,
# Vulkan, the shared-memory channel): clang's errors and warnings in them fail here too.
cmake --build build-fuzz -j"$JOBS" --target fuzz_targets cg_gl cg_gl_ring cg_vulkan cg_shm

# ctest in build folder $1 (more ctest arguments after it), then every
# skipped test with the reason it printed: ctest's summary names them only.
run_ctest() {
  local dir=$1 rc=0
  shift
  (cd "$dir" && ctest --output-on-failure -j"$JOBS" --output-junit "$PWD/ctest-junit.xml" "$@") || rc=1
  python3 scripts/ctest-skips.py "$dir/ctest-junit.xml" || true
  return $rc
}

status=0
echo "== ctest: core tests under ASan+UBSan"
run_ctest build-asan -L core || status=1

echo "== ctest: timed libFuzzer runs (corpus + regressions first)"
run_ctest build-fuzz -L fuzz || status=1

echo "== ctest: all tests"
run_ctest build || status=1

# Cross builds: the core suites (NEON included) under qemu-user and under
# Wine, libnative-lib and its natives jar for aarch64 Linux and Windows x64;
# for Windows also its GL natives on a WGL context (Wine under Xvfb).
# CG_CROSS=0 skips them (about 2 minutes, plus Check for MinGW once: 2 more).
if [[ ${CG_CROSS:-1} == 0 ]]; then
  echo "== cross builds skipped (CG_CROSS=0)"
  exit $status
fi
cross=(-DCMAKE_BUILD_TYPE=Release -DCG_WERROR=ON -DCG_WITH_CUDA=OFF -DCG_BUILD_BENCH=OFF
       -DCG_BUILD_DEMO=OFF)
t0=$SECONDS
echo "== cross build: aarch64 Linux (core, JNI, natives jar); tests under qemu-user"
cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake \
  "${cross[@]}" >/dev/null
cmake --build build-aarch64 -j"$JOBS" --target cg_cross
run_ctest build-aarch64 -L cross || status=1
echo "   aarch64: $((SECONDS - t0)) s"

t0=$SECONDS
echo "== cross build: Windows x64 (core, JNI DLL, natives jar); tests under Wine"
bash scripts/build-check-mingw.sh build-mingw/deps/check "$JOBS"
cmake -S . -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-x86_64-w64-mingw32.cmake \
  -DCG_MINGW_DEPS="$PWD/build-mingw/deps/check" "${cross[@]}" >/dev/null
cmake --build build-mingw -j"$JOBS" --target cg_cross
# Wine's first start creates its prefix; do it once before tests run in parallel.
t1=$SECONDS
WINEPREFIX=$PWD/build-mingw/wineprefix WINEDEBUG=-all DISPLAY= /usr/lib/wine/wine64 wineboot --init \
  >/dev/null 2>&1 || true
echo "   wine prefix ready in $((SECONDS - t1)) s"
run_ctest build-mingw -L cross || status=1
# The GL tests' WGL context (tests/wgl), as Wine's opengl32 reported it.
grep -m1 -ho 'WGL context: .*' build-mingw/Testing/Temporary/LastTest.log 2>/dev/null |
  sed 's/^/   /' || echo "   no WGL context reported (gl_wgl_* skipped?)"
echo "   windows: $((SECONDS - t0)) s"
exit $status
