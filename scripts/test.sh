#!/usr/bin/env bash
# The test command: install what is missing, build everything, run every test
# through ctest, then the core tests again under AddressSanitizer + UBSan.
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

status=0
echo "== ctest: core tests under ASan+UBSan"
(cd build-asan && ctest -L core --output-on-failure -j"$JOBS") || status=1

echo "== ctest: all tests"
(cd build && ctest --output-on-failure -j"$JOBS") || status=1
exit $status
