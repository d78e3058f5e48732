#!/bin/sh
# Run a Windows test program under Wine on an X server of its own (xvfb-run),
# so that Wine's opengl32 gives it a real WGL context (Mesa llvmpipe here):
#   wgl_run.sh SERVERNUM WINE64 WINEPREFIX PYTHON CHECK_PY OUT_DIR -- PROGRAM ARGS...
# OUT_DIR (relative to the current folder) is made empty and passed last;
# when the program wrote OUT_DIR/manifest.txt, CHECK_PY (tests/core/
# png_raw_check.py) decodes its PNGs with the host's PIL. Exits 77 (SKIPPED)
# where xvfb-run or Wine is missing. SERVERNUM: the first X display number
# tried (-a takes the next free one), apart for tests that run in parallel.
set -eu
num=$1 wine=$2 prefix=$3 py=$4 check=$5 out=$6
shift 6
[ "${1:-}" = -- ] || { echo "wgl_run.sh: -- expected before the program" >&2; exit 2; }
shift
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "SKIP: xvfb-run is not installed (package xvfb): no X server for Wine's OpenGL"
  exit 77
fi
if [ ! -x "$wine" ]; then
  echo "SKIP: wine64 is not installed (package wine64): cannot run the Windows program"
  exit 77
fi
rm -rf "$out"
mkdir "$out"
rc=0
xvfb-run -a -n "$num" -s "-screen 0 320x240x24" \
  env WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml= \
  "$wine" "$@" "$out" || rc=$?
[ "$rc" = 0 ] || exit "$rc"
[ -s "$out/manifest.txt" ] || exit 0
exec "$py" "$check" check "$out"
