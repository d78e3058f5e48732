#!/bin/sh
# png_raw_encode checked by PIL on the host (tests/core/png_raw_check.py):
#   png_raw_pil.sh OUT_DIR PYTHON CHECK_PY [FRAME.png...] -- [EMULATOR...] PNG_RAW_ENCODE [ARGS]
# The encoder may run under an emulator (Wine, qemu-user): it reads and
# writes OUT_DIR relative to the current folder only.
set -eu
out=$1 py=$2 script=$3
shift 3
frames=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  frames="$frames $1"
  shift
done
[ $# -gt 1 ] || { echo "png_raw_pil.sh: no program after --" >&2; exit 2; }
shift
rm -rf "$out"
mkdir "$out"
# shellcheck disable=SC2086 # the frames' paths have no spaces (bench/corpus)
"$py" "$script" prepare "$out" $frames || exit $?
"$@" "$out"
exec "$py" "$script" check "$out"
