#!/bin/sh
# validate.sh EXE ARGS... - run a Vulkan test under the Khronos validation
# layer with synchronization validation on; any validation message fails
# it (GPU hazards that lavapipe's in-order execution would hide). Without
# the layer (Debian: vulkan-validationlayers) vkCreateInstance fails and
# the test exits 77: SKIPPED.
out=$(VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation \
      VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT \
      "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || exit "$rc"
if printf '%s\n' "$out" | grep -q 'VUID-\|SYNC-\|Validation Error\|Validation Warning'; then
  echo "FAIL: the validation layer reported the messages above"
  exit 1
fi
