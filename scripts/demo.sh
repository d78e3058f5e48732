#!/usr/bin/env bash
# The main job: install what is missing, build, and run the demo. A voxel world
# is rendered headlessly (EGL, GL 3.3 core: the NVIDIA EGL device when present,
# Mesa llvmpipe otherwise), every frame is captured through the JNI entry points
# the mod calls (captureFramebufferImpl RAW + PNG, captureDepthImpl) in a real
# JVM, and the observations are written as images a person can open.
#
# Arguments are checked before anything else (packages, build, output folder):
# a bad one is one line on stderr and exit status 2. CG_DEMO_CHECK_ONLY=1 stops
# right after the check (the demo_args test uses it).
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: bash scripts/demo.sh [--frames N] [--width W] [--height H] [--out DIR]

Renders a voxel world headlessly, captures every frame through the library's
JNI entry points as the mod does, writes the observations as images into DIR
and prints per-stage timings (median, p10, p90). Run as root on Debian 12: it
installs missing packages and builds first.

  --frames N   frames to render and capture, 1..100000   (default 60)
  --width W    frame width in pixels, 1..16384           (default 640)
  --height H   frame height in pixels, 1..16384          (default 360)
  --out DIR    output folder, created if missing   (default out/demo in the repository)
  -h, --help   print this help and exit

Files per frame: frame_NNN.png (the RAW observation, upright for viewing),
wire_NNN.png (the PNG observation as sent: bottom-up, so upside down) and
depth_NNN.png (linearised depth, near = dark); for the first three frames also
obs_raw_NNN.bin and obs_png_NNN.bin, the ObservationSpaceMessages the mod would
send (RAW or PNG image + depth), which the Python package reads.
USAGE
}

die() {
  echo "demo.sh: $*" >&2
  exit 2
}

# An integer in [lo, hi], written in decimal digits only.
check_int() {
  local opt=$1 val=$2 lo=$3 hi=$4
  [[ $val =~ ^[0-9]+$ ]] && ((${#val} <= 6)) && ((10#$val >= lo && 10#$val <= hi)) ||
    die "$opt must be a whole number from $lo to $hi, got '$val' (see --help)"
}

frames=60 width=640 height=360 out=
while (($#)); do
  opt=$1 val= has_val=0
  case $opt in
    -h | --help) usage; exit 0 ;;
    --*=*) val=${opt#*=}; opt=${opt%%=*}; has_val=1 ;;
  esac
  case $opt in
    --frames | --width | --height | --out) ;;
    *) die "unknown option '$opt' (see --help)" ;;
  esac
  if ((!has_val)); then
    (($# >= 2)) || die "$opt needs a value (see --help)"
    val=$2
    shift
  fi
  shift
  case $opt in
    --frames) check_int "$opt" "$val" 1 100000; frames=$((10#$val)) ;;
    --width) check_int "$opt" "$val" 1 16384; width=$((10#$val)) ;;
    --height) check_int "$opt" "$val" 1 16384; height=$((10#$val)) ;;
    --out)
      [ -n "$val" ] || die "--out needs a folder name (see --help)"
      [ ! -e "$val" ] || [ -d "$val" ] || die "--out '$val' exists and is not a folder"
      out=$val ;;
  esac
done
# A folder given is relative to where the user ran the script; the default is
# out/demo in the repository.
case $out in /*) ;; '') out=$(cd "$(dirname "$0")/.." && pwd)/out/demo ;; *) out=$PWD/$out ;; esac
if [ "${CG_DEMO_CHECK_ONLY:-0}" = 1 ]; then
  echo "demo.sh: arguments ok: --frames $frames --width $width --height $height --out $out"
  exit 0
fi

cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
# Its own tree: the library and the demo only, no tests or benchmarks, so
# that the demo profile's packages are enough (scripts/test.sh builds build/).
BUILD=${BUILD_DIR:-build-demo}

bash scripts/install-deps.sh demo

echo "== build (Release)"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCG_BUILD_TESTS=OFF -DCG_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target cg_demo_run_jar

echo "== run"
exec "$BUILD"/demo/cg_demo_run --frames "$frames" --width "$width" --height "$height" --out "$out"
