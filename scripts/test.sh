#!/usr/bin/env bash
# The test command: install what is missing, build everything, run every test
# through ctest, the core tests again under AddressSanitizer + UBSan, and a
# timed libFuzzer run of each fuzz target (clang, label fuzz).
# Usage (as root on Debian 12): bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

bash scripts/install-deps.sh

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
cmake --build build-fuzz -j"$JOBS" --target fuzz_targets

status=0
echo "== ctest: core tests under ASan+UBSan"
(cd build-asan && ctest -L core --output-on-failure -j"$JOBS") || status=1

echo "== ctest: timed libFuzzer runs (corpus + regressions first)"
(cd build-fuzz && ctest -L fuzz --output-on-failure -j"$JOBS") || status=1

echo "== ctest: all tests"
(cd build && ctest --output-on-failure -j"$JOBS") || status=1
exit $status
