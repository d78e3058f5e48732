#!/usr/bin/env bash
# demo_log (labels demo, gl): the demo's progress in a log. With stderr a
# file (not a terminal), stderr must hold no carriage return ("\r"), at most
# 11 lines (one every tenth of the run and the last frame), the last of them
# "demo: frame N/N ...". SKIPPED (77) where the scene cannot be set up.
# Usage: test_demo_log.sh path/to/cg_demo_run
set -u
run=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
frames=25
"$run" --frames $frames --width 64 --height 36 --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
if ((rc == 1)) && grep -q 'cannot set up the scene' "$tmp/stderr"; then
  echo "SKIP demo_log: $(head -1 "$tmp/stderr")"
  exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
((rc == 0)) || fail "the demo exited $rc: $(head -c 500 "$tmp/stderr")"
crs=$(tr -cd '\r' <"$tmp/stderr" | wc -c)
((crs == 0)) || fail "stderr holds $crs carriage returns (progress for a terminal, in a log)"
lines=$(wc -l <"$tmp/stderr")
((lines >= 1 && lines <= 11)) || fail "stderr has $lines lines, want 1..11: $(head -c 300 "$tmp/stderr")"
last=$(tail -n 1 "$tmp/stderr")
[[ $last == "demo: frame $frames/$frames "* ]] || fail "stderr's last line is '$last', want 'demo: frame $frames/$frames ...'"
((fails == 0)) && echo "ok: $lines progress lines, no carriage return"
exit $((fails > 0))
