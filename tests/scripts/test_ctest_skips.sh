#!/usr/bin/env bash
# ctest_skips (label scripts): scripts/ctest-skips.py on a real ctest run of
# a small project whose tests skip in the ways this project's tests do. The
# list must name every skipped test with the reason it printed, in ctest's
# order, and no test that ran (even one printing a SKIP line for a part).
# Usage: test_ctest_skips.sh cmake ctest python3 path/to/ctest-skips.py
set -u
cmake=$1 ctest=$2 python=$3 script=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(skips NONE)
enable_testing()
function(t name code)
  add_test(NAME ${name} COMMAND sh -c "${code}")
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()
t(zc2_ring_semaphore "echo 'SKIP ring_semaphore: lavapipe lacks VK_KHR_external_semaphore_fd'; exit 77")
t(vulkan_export "echo 'device: x'; echo 'SKIP: llvmpipe lacks VK_EXT_debug_utils: the naming case cannot run'; exit 77")
t(passes "echo 'SKIP part one: not here'; echo ok")
t(no_skip_line "echo 'looking for a GPU'; echo 'no CUDA device (cudaErrorNoDevice)' >&2; exit 77")
t(silent "exit 77")
t(two "echo 'SKIP two: no <display> & no X'; echo 'SKIP two: no xvfb-run'; exit 77")
CM
"$cmake" -S "$tmp" -B "$tmp/b" >/dev/null || { echo "FAIL: the small project did not configure"; exit 1; }
(cd "$tmp/b" && "$ctest" --output-junit "$tmp/b/junit.xml" >"$tmp/ctest.out" 2>&1)
"$python" "$script" "$tmp/b/junit.xml" >"$tmp/got" 2>"$tmp/err"
rc=$?
cat >"$tmp/want" <<'WANT'
skipped (5), with the reasons the tests printed:
  zc2_ring_semaphore: lavapipe lacks VK_KHR_external_semaphore_fd
  vulkan_export: llvmpipe lacks VK_EXT_debug_utils: the naming case cannot run
  no_skip_line: no CUDA device (cudaErrorNoDevice)
  silent: SKIP_RETURN_CODE=77
  two: no <display> & no X; no xvfb-run
WANT
fails=0
((rc == 0)) || { echo "FAIL: ctest-skips.py exited $rc: $(cat "$tmp/err")"; fails=1; }
if ! diff -u "$tmp/want" "$tmp/got"; then
  echo "FAIL: the skip list differs (above: - wanted, + got)"
  fails=1
fi
# Nothing skipped: nothing printed.
printf '<testsuite><testcase name="a" status="run"><system-out>SKIP x: y</system-out></testcase></testsuite>\n' >"$tmp/none.xml"
out=$("$python" "$script" "$tmp/none.xml")
[ -z "$out" ] || { echo "FAIL: a run without skips printed: $out"; fails=1; }
# An unreadable file: exit 2 and a line naming it.
"$python" "$script" "$tmp/missing.xml" 2>"$tmp/err2"
rc=$?
((rc == 2)) && grep -q "missing.xml" "$tmp/err2" || { echo "FAIL: a missing file gave $rc: $(cat "$tmp/err2")"; fails=1; }
((fails == 0)) && echo "ok: every skipped test listed with its reason"
exit $fails
