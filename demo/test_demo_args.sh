#!/usr/bin/env bash
# demo_args (label demo): scripts/demo.sh's argument checks, no rendering.
# Each bad argument must give exit status 2 and exactly one line on stderr
# naming the problem, nothing on stdout, and must not touch the output
# folder, create it, or get as far as packages or the build: apt-get,
# dpkg-query and cmake are stand-ins here that leave a mark if called.
# Usage: test_demo_args.sh path/to/demo.sh
set -u
demo=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/existing"
for tool in apt-get dpkg-query cmake; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 1\n' "$tool" "$tmp" >"$tmp/bin/$tool"
  chmod +x "$tmp/bin/$tool"
done
echo keep >"$tmp/existing/marker"
snapshot() { find "$tmp/existing" -printf '%P %s %m %T@\n' | sort; cat "$tmp/existing/marker"; }
before=$(snapshot)
fails=0

# run NAME EXPECTED_RC STDERR_PATTERN ARGS...
run() {
  local name=$1 want_rc=$2 pattern=$3
  shift 3
  rm -f "$tmp/called"
  PATH="$tmp/bin:$PATH" bash "$demo" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? why=
  local nerr
  nerr=$(wc -l <"$tmp/err")
  if [ "$rc" != "$want_rc" ]; then why="exit status $rc, expected $want_rc"
  elif [ "$want_rc" = 2 ] && [ "$nerr" != 1 ]; then why="$nerr lines on stderr, expected 1"
  elif [ "$want_rc" = 2 ] && ! grep -qE -- "$pattern" "$tmp/err"; then why="stderr lacks /$pattern/"
  elif [ "$want_rc" = 2 ] && [ -s "$tmp/out" ]; then why="output on stdout"
  elif [ "$want_rc" = 0 ] && ! grep -qE -- "$pattern" "$tmp/out"; then why="stdout lacks /$pattern/"
  elif [ -e "$tmp/called" ]; then why="reached $(head -1 "$tmp/called")"
  elif [ -e "$tmp/new" ]; then why="created the output folder"
  elif [ "$(snapshot)" != "$before" ]; then why="changed the existing output folder"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $name: $why"
    sed 's/^/  stderr: /' "$tmp/err" | head -5
    fails=$((fails + 1))
  else
    echo "ok   $name: $(head -1 "$tmp/err" "$tmp/out" 2>/dev/null | grep -v '^==' | grep . | head -1)"
  fi
}

for out in "$tmp/new" "$tmp/existing"; do
  o=$(basename "$out")
  run "width abc ($o)" 2 "--width .*abc" --width abc --out "$out"
  run "frames 0 ($o)" 2 "--frames .*'0'" --frames 0 --out "$out"
  run "frames -1 ($o)" 2 "--frames .*'-1'" --out "$out" --frames -1
  run "width 100000 ($o)" 2 "--width .*1 to 16384.*100000" --width 100000 --out "$out"
  run "height 1.5 ($o)" 2 "--height .*1\\.5" --out "$out" --height 1.5
  run "frames= empty ($o)" 2 "--frames .*''" --frames= --out "$out"
  run "unknown option ($o)" 2 "unknown option '--fps'" --out "$out" --fps 30
  run "stray word ($o)" 2 "unknown option 'frames'" --out "$out" frames
  run "missing value ($o)" 2 "--frames needs a value" --out "$out" --frames
done
run "out is a file" 2 "is not a folder" --out "$tmp/existing/marker"
run "help" 0 "^Usage: bash scripts/demo.sh" --help
run "help after good values" 0 "^Usage:" --frames 5 --help
# The checks let good values through (up to the point where the stand-ins
# would be called): the test can tell a rejection from an acceptance.
CG_DEMO_CHECK_ONLY=1 run "good values" 0 "arguments ok: --frames 7 --width 16384 --height 1 --out $tmp/new" \
  --frames 7 --width=16384 --height 1 --out "$tmp/new"
TMPDIR=$tmp PATH="$tmp/bin:$PATH" bash "$demo" --frames 1 --out "$tmp/new" >/dev/null 2>&1
if [ -e "$tmp/called" ]; then
  echo "ok   good values go on to install packages ($(head -1 "$tmp/called"))"
else
  echo "FAIL good values did not go on to install packages"
  fails=$((fails + 1))
fi
echo "demo_args: $fails failures"
[ "$fails" = 0 ]
