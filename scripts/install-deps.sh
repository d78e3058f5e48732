#!/usr/bin/env bash
# Install, as root on Debian 12, every package the build, the tests and the demo
# need. Installs only what is missing, so a second run costs a few seconds.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config
  openjdk-17-jdk-headless          # javac, jni.h, a JVM for the JVM tests and demo
  libdeflate-dev zlib1g-dev        # PNG encoding: headers only; libdeflate0 / zlib loaded at run time
  libpng-dev                       # PNG decoding in the tests and the libpng limit in bench_core
  libprotobuf-c-dev protobuf-c-compiler   # C side of the wire message
  protobuf-compiler libprotobuf-java      # Java side: protoc --java_out and protobuf.jar
  check libsubunit-dev             # Check unit tests
  libepoxy-dev libegl-dev libgles-dev libgl-dev libegl-mesa0 libgl1-mesa-dri   # GL through EGL, Mesa llvmpipe
  libvulkan-dev mesa-vulkan-drivers        # Vulkan headers + loader for tests, lavapipe
  python3 python3-numpy python3-pil        # the Python consumer check
  xvfb xauth libx11-dev                  # GL capture under GLX (as Minecraft on X11), in an Xvfb server
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all packages present"
fi
