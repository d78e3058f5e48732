#!/usr/bin/env bash
# Install, as root on Debian 12, the packages of one profile. Installs only
# what is missing, so a second run costs a few seconds.
#
#   bash scripts/install-deps.sh [demo|test|cross]   (default: cross, what scripts/test.sh needs)
#   bash scripts/install-deps.sh --list PROFILE      print the profile's packages, install nothing
#
# Each profile includes the ones above it:
#   demo   build the library and the demo (scripts/demo.sh): compiler, CMake,
#          a JDK, protoc + protobuf-java, libepoxy and Mesa's EGL + llvmpipe
#   test   + everything scripts/test.sh's native build and ctest use (Check,
#          libpng, protobuf-c, Vulkan + lavapipe, Xvfb, Python, clang for libFuzzer)
#   cross  + the aarch64 (qemu-user) and Windows (MinGW, Wine) cross builds;
#          adds the arm64 architecture
set -euo pipefail

DEMO_PACKAGES=(
  build-essential cmake pkg-config
  openjdk-17-jdk-headless          # javac, jni.h, a JVM for the JVM tests and demo
  libdeflate-dev zlib1g-dev        # PNG encoding: headers only; libdeflate0 / zlib loaded at run time
  protobuf-compiler libprotobuf-java      # Java side of the wire message: protoc --java_out and protobuf.jar
  libepoxy-dev libegl-mesa0 libgl1-mesa-dri   # GL through EGL (libepoxy-dev brings libegl-dev, libgl-dev), Mesa llvmpipe
)
TEST_PACKAGES=(
  libpng-dev                       # PNG decoding in the tests and the libpng limit in bench_core
  libprotobuf-c-dev protobuf-c-compiler   # C side of the wire message
  check libsubunit-dev             # Check unit tests
  libegl-dev libgles-dev libgl-dev         # GLES headers of the GL tests
  libvulkan-dev mesa-vulkan-drivers        # Vulkan headers + loader for tests, lavapipe
  glslang-tools                            # glslangValidator: the ring's RGB compute shader -> SPIR-V at build time
  vulkan-validationlayers                  # the RGB slot test again under synchronization validation
  python3 python3-numpy python3-pil        # the Python consumer check
  python3-venv python3-pip python3-setuptools python3-wheel   # pip install ./python (the reader package)
  python3-wheel-whl                        # README's online pip recipe, run offline (ship.readme_python_online)
  python3-dev gcc                          # the reader's native helper (python/native/lease.c) and its wheel
  libatomic1 passwd                      # zero-copy v2: the Python learner's CAS; a test user (useradd)
  xvfb xauth libx11-dev                  # GL capture under GLX (as Minecraft on X11), in an Xvfb server
  clang libclang-rt-14-dev               # libFuzzer builds of the fuzz targets (tests/fuzz)
)
# Cross builds (scripts/test.sh): aarch64 Linux under qemu-user, Windows x64 under Wine
CROSS_PACKAGES=(
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static
  check:arm64 libsubunit-dev:arm64 libpng-dev:arm64 zlib1g-dev:arm64 libdeflate0:arm64 libepoxy-dev:arm64
  gcc-mingw-w64-x86-64 wine64
)

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

list=0
case ${1:-} in
  --list) list=1; shift ;;
  -h | --help) usage; exit 0 ;;
esac
profile=${1:-cross}
(($# <= 1)) || { echo "install-deps: one profile, got: $*" >&2; exit 2; }
case $profile in
  demo) PACKAGES=("${DEMO_PACKAGES[@]}") ;;
  test) PACKAGES=("${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  cross) PACKAGES=("${DEMO_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${CROSS_PACKAGES[@]}") ;;
  *) echo "install-deps: unknown profile '$profile' (demo, test or cross; see --help)" >&2; exit 2 ;;
esac
if ((list)); then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi
echo "install-deps: profile $profile (${#PACKAGES[@]} packages asked for)"

# The :arm64 packages are Debian multiarch: arm64 must be a foreign architecture.
if [ "$profile" = cross ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "install-deps: adding the arm64 architecture (multiarch, for the aarch64 cross build)"
  dpkg --add-architecture arm64
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# apt's machine-readable status (APT::Status-Fd) -> one progress line: redrawn
# in place on a terminal, a new line every 10% otherwise (CI logs).
progress() {
  local kind pkg pct what last=-10 phase= shown
  while IFS=: read -r kind pkg pct what; do
    [ "$kind" = "$phase" ] || { phase=$kind; last=-10; }
    case $kind in
      dlstatus) what="downloading: $what" ;;
      pmstatus) ;;
      *) continue ;;
    esac
    pct=${pct%%.*}
    if [ -t 1 ]; then
      printf '\r\033[Kinstall-deps: [%3d%%] %.70s' "$pct" "$what"
      shown=1
    elif ((pct >= last + 10)); then
      printf 'install-deps: [%3d%%] %s\n' "$pct" "$what"
      last=$pct
    fi
  done
  [ -z "${shown:-}" ] || printf '\r\033[K'
}

if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt=(apt-get -o DPkg::Lock::Timeout=900)
  log=$(mktemp -t install-deps.XXXXXX)
  started=$SECONDS
  echo "install-deps: missing ${missing[*]}"
  echo "install-deps: apt-get update (reading Debian's package lists)"
  "${apt[@]}" update -qq >"$log" 2>&1 || { tail -20 "$log" >&2; exit 1; }
  # What will be installed, dependencies included (a dry run, no lock held).
  mapfile -t all < <(apt-get -s install --no-install-recommends "${missing[@]}" 2>/dev/null |
                     awk '/^Inst /{print $2}')
  echo "install-deps: installing ${#all[@]} packages (${#missing[@]} asked for, the rest their" \
       "dependencies); apt's output goes to $log"
  if ! "${apt[@]}" -o APT::Status-Fd=3 install -y -qq --no-install-recommends "${missing[@]}" \
       3> >(progress) >>"$log" 2>&1; then
    wait $! 2>/dev/null || true
    echo "install-deps: apt-get install failed; the end of $log:" >&2
    tail -20 "$log" >&2
    exit 1
  fi
  wait $! 2>/dev/null || true
  echo "install-deps: installed ${#all[@]} packages in $((SECONDS - started)) s"
  rm -f "$log"
else
  echo "install-deps: all packages present"
fi
