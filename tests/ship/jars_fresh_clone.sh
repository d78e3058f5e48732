#!/bin/sh
# The mod developer's command (scripts/jars.sh) on a fresh clone: clone the
# repository's committed HEAD into a temporary folder, run the command there
# (its install step finds the packages present), then check the Maven
# repository it wrote with the consumer check given after SRC, in which
# @REPO@ stands for that repository. Exit 77 (skipped) without git or outside
# a git checkout.
# Usage: jars_fresh_clone.sh SRC CHECK_COMMAND...
set -eu
src=$1
shift
command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }
git -C "$src" rev-parse --verify -q HEAD >/dev/null || { echo "SKIP: $src is not a git checkout"; exit 77; }
if [ -n "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
  echo "note: $src has uncommitted changes; this checks its HEAD, as a fresh clone has it"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cg-jars-clone.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
git clone -q --no-hardlinks "$src" "$tmp/src"
JOBS=${JOBS:-2} bash "$tmp/src/scripts/jars.sh" --build "$tmp/build"
repo=$tmp/build/maven
for a in "$@"; do
  [ "$a" = @REPO@ ] && a=$repo
  set -- "$@" "$a"
  shift
done
"$@"
