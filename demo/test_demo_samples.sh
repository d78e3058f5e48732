#!/usr/bin/env bash
# demo_samples (labels demo, python, gl): the demo run small (3 frames,
# 96x54), then its sample messages read with the Python package
# (check_samples.py). SKIPPED (77) where the scene cannot be set up.
# Usage: test_demo_samples.sh path/to/cg_demo_run python3 path/to/python-package
set -u
run=$1 python=$2 pkg=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$run" --frames 3 --width 96 --height 54 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if ((rc == 1)) && grep -q 'cannot set up the scene' "$tmp/stderr"; then
  echo "SKIP demo_samples: $(head -1 "$tmp/stderr")"
  exit 77
fi
((rc == 0)) || { echo "FAIL: the demo exited $rc: $(head -c 500 "$tmp/stderr")"; exit 1; }
# Not exec: the EXIT trap must still remove $tmp.
PYTHONPATH=$pkg "$python" "$(dirname "$0")/check_samples.py" "$tmp/out" 96 54 3
