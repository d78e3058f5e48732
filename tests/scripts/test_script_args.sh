#!/usr/bin/env bash
# script_args (label scripts): scripts/test.sh and scripts/jars.sh answer
# --help with their usage (exit 0) and a bad argument with one line on stderr
# (exit 2), and get nowhere near packages or a build either way: apt-get,
# dpkg-query, dpkg, cmake and ctest are stand-ins here that leave a mark.
# Usage: test_script_args.sh path/to/scripts
set -u
scripts=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
for tool in apt-get dpkg-query dpkg cmake ctest; do
  printf '#!/bin/sh\necho "%s $*" >>"%s/called"\nexit 1\n' "$tool" "$tmp" >"$tmp/bin/$tool"
  chmod +x "$tmp/bin/$tool"
done
fails=0

# run NAME SCRIPT EXPECTED_RC PATTERN ARGS...: PATTERN on stdout (rc 0) or stderr (rc 2)
run() {
  local name=$1 script=$2 want_rc=$3 pattern=$4
  shift 4
  rm -f "$tmp/called"
  PATH="$tmp/bin:$PATH" timeout 20 bash "$scripts/$script" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? why=
  if [ "$rc" != "$want_rc" ]; then why="exit status $rc, expected $want_rc"
  elif [ "$want_rc" = 0 ] && ! grep -qE -- "$pattern" "$tmp/out"; then why="stdout lacks /$pattern/"
  elif [ "$want_rc" = 0 ] && [ -s "$tmp/err" ]; then why="output on stderr"
  elif [ "$want_rc" = 2 ] && [ "$(wc -l <"$tmp/err")" != 1 ]; then why="not one line on stderr"
  elif [ "$want_rc" = 2 ] && ! grep -qE -- "$pattern" "$tmp/err"; then why="stderr lacks /$pattern/"
  elif [ -e "$tmp/called" ]; then why="reached $(head -1 "$tmp/called")"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $name: $why"
    head -3 "$tmp/err" | sed 's/^/  stderr: /'
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}

run "test.sh --help" test.sh 0 '^Usage .*scripts/test.sh' --help
run "test.sh -h" test.sh 0 '^Usage .*scripts/test.sh' -h
run "test.sh with an argument" test.sh 2 "no arguments expected, got '--frames 3'" --frames 3
run "jars.sh --help" jars.sh 0 '^Usage: bash scripts/jars.sh' --help
run "jars.sh with an unknown option" jars.sh 2 "unknown option '--out'" --out x
run "jars.sh --build without a folder" jars.sh 2 "needs a folder" --build
((fails == 0)) || { echo "$fails failure(s)"; exit 1; }
