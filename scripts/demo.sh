#!/usr/bin/env bash
# The main job: install what is missing, build, and run the demo. A voxel world
# is rendered headlessly (EGL, GL 3.3 core: the NVIDIA EGL device when present,
# Mesa llvmpipe otherwise), every frame is captured through the JNI entry points
# the mod calls (captureFramebufferImpl RAW + PNG, captureDepthImpl) in a real
# JVM, and the observations are written as images a person can open.
#
# Usage (as root on Debian 12): bash scripts/demo.sh [--frames N] [--width W]
#        [--height H] [--out DIR]        (defaults: 60 frames, 640x360, out/demo)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
BUILD=${BUILD_DIR:-build}   # the same tree scripts/test.sh builds

bash scripts/install-deps.sh

echo "== build (Release)"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target cg_demo_run_jar

echo "== run"
exec "$BUILD"/demo/cg_demo_run "$@"
