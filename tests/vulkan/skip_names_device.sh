#!/usr/bin/env bash
# vulkan_export_skip_reason (label vulkan): a test_vk_export case that
# SKIPs (exit 77) must name the device it ran on, as its "device: NAME (...)"
# line gives it, in its SKIP line ("SKIP:  lacks ..." named none). Passes
# with a note where no case skips (every feature present).
# Usage: skip_names_device.sh path/to/test_vk_export
set -u
exe=$1
fails=0 skipped=0
for c in naming binary_semaphore timeline_semaphore; do
  out=$("$exe" "$c" 2>&1)
  rc=$?
  ((rc == 77)) || continue
  skipped=$((skipped + 1))
  dev=$(printf '%s\n' "$out" | sed -n 's/^device: \(.*\) (debug_utils.*/\1/p' | head -1)
  line=$(printf '%s\n' "$out" | grep -m1 '^SKIP' || true)
  if [ -z "$dev" ]; then
    echo "FAIL $c: no 'device:' line before the skip: $out"
    fails=$((fails + 1))
  elif [[ $line != "SKIP vulkan_export_$c: $dev lacks "* ]]; then
    echo "FAIL $c: skip line '$line' does not name the case and device '$dev'"
    fails=$((fails + 1))
  else
    echo "ok $c: $line"
  fi
done
((skipped == 0)) && echo "no case skipped on this device: nothing to check"
exit $((fails > 0))
