#!/usr/bin/env bash
# The GPU-labelled tests and the zero-copy benchmarks, in one command, on the
# NVIDIA machine (see docs/gpu-machine.md): that machine has no Vulkan loader, no
# GL/EGL dispatch libraries, no libepoxy and no headers for them, so they
# travel with the tree in two ignored folders made here first:
#
#   bash scripts/gpu-tests.sh --prepare   # on the dev machine (Debian 12):
#                                         # .gl/ <- the loader .debs,
#                                         # build-deps/include <- the headers
#   bash scripts/gpu-tests.sh             # on the GPU machine, from the repo root
#                                         # (carry .gl and build-deps)
#   bash scripts/gpu-tests.sh --e2e [ARGS]  # on the GPU machine: only the end-to-end
#                                         # benchmark (bench/e2e/e2e_bench.py ARGS; carry
#                                         # .gl, build-gpu-jvm and .jre)
#   bash scripts/gpu-tests.sh --soak [ARGS] # on the GPU machine: only the soak
#                                         # (bench/e2e/soak.py ARGS; the same carry)
#
# While iterating: CG_GPU_TESTS=<ctest -R regex>, CG_GPU_JVM=0 (skip the JVM
# tests), CG_GPU_BENCH=0 or CG_GPU_BENCHES="bench_zerocopy_v2 ..." narrow it.
# On the 2-GPU kind (nvidia-h200-x2) python_device_cuda and bench/cross_gpu.py
# run too (the learner on another GPU than its games); with 1 GPU they skip.
#
# The .debs are unpacked into / only on the GPU machine (a fresh machine per
# run); never run the second form on the dev machine. Logs go to $OUT (the
# device tool's output folder) or ./out.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

if [ "${1:-}" = "--prepare" ]; then
  set -e
  mkdir -p .gl build-deps/include /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update -qq
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 \
     libgles2 libepoxy0 libepoxy-dev check libsubunit-dev libsubunit0 libdeflate0 \
     glslang-tools)  # glslangValidator: the ring's RGB compute shader at build time
  # libX11 for the GLX test: unpacked apart from / there (its deps are older
  # than that machine's own), reached through an rpath.
  mkdir -p .gl/x11
  (cd .gl/x11 && apt-get $o download libx11-6 libx11-dev libxcb1 libxau6 libxdmcp6 libbsd0 libmd0)
  # C headers only (the tree travels under a size limit).
  mkdir -p build-deps/include/vulkan build-deps/include/GL
  cp /usr/include/vulkan/*.h build-deps/include/vulkan/
  cp /usr/include/GL/gl.h /usr/include/GL/glext.h /usr/include/GL/glcorearb.h build-deps/include/GL/
  cp -r /usr/include/vk_video /usr/include/EGL /usr/include/KHR build-deps/include/
  # The PNG encoder's deflate header (the library itself is dlopen'd).
  cp /usr/include/libdeflate.h build-deps/include/
  # epoxy/glx.h (the GLX test) includes X11/Xlib.h.
  [ -d /usr/include/X11 ] && cp -r /usr/include/X11 build-deps/include/
  # The JVM zero-copy tests: that machine has no JDK, so the natives and jars
  # are built here (CUDA on; cudart is static, x86-64 glibc builds run there)
  # into build-gpu-jvm/, beside a jlink'd runtime in .jre/.
  # The end-to-end benchmark's game (bench/e2e: its jar and JNI helper) too.
  cmake -S . -B build-gpu-jvm-build -DCMAKE_BUILD_TYPE=Release -DCG_WITH_CUDA=ON \
    -DCG_BUILD_DEMO=OFF -DCG_BUILD_BENCH=ON >/dev/null
  cmake --build build-gpu-jvm-build -j"$(nproc)" --target native-lib zc_helper cg_stubs \
    jvm_cuda_zerocopy_jar jvm_cuda_gl_zerocopy_jar jvm_zerocopy_lifecycle_jar \
    ring_helper jvm_vk_ring_jar gltest jvm_gl_ring_jar e2e_game bench_e2e_game_jar cg_proto_java \
    bench_e2e_soak_game_jar bench_e2e_soak_gl_game_jar cg_py_lease
  rm -rf build-gpu-jvm && mkdir -p build-gpu-jvm
  # The learner package's native helper (python/native/lease.c): one abi3 module, so this
  # Debian's Python headers make a module that machine's python3 (3.12) loads; --e2e and
  # --soak name it, as a pip install would build it.
  cp build-gpu-jvm-build/python/_lease.abi3.so build-gpu-jvm/
  find build-gpu-jvm-build \( -name libnative-lib.so -o -name libzc_helper.so \
    -o -name libring_helper.so -o -name cg_stubs.jar -o -name 'jvm_*zerocopy*_jar.jar' \
    -o -name jvm_vk_ring_jar.jar -o -name libgltest.so -o -name jvm_gl_ring_jar.jar \
    -o -name libe2e_game.so -o -name bench_e2e_game_jar.jar -o -name cg_proto_java.jar \
    -o -name 'bench_e2e_soak_*game_jar.jar' \) \
    -exec cp {} build-gpu-jvm/ \;
  cp -L /usr/share/java/protobuf.jar build-gpu-jvm/
  rm -rf .jre
  # java.logging: protobuf-java's message classes (the e2e game's ObservationSpaceMessage);
  # jdk.unsupported: its Unsafe fast paths, as in a game's full JDK.
  jlink --add-modules java.base,java.logging,jdk.unsupported --strip-debug --no-header-files \
    --no-man-pages --compress=2 --output .jre
  echo "prepared .gl/, build-deps/, build-gpu-jvm/ and .jre/: carry all four to the GPU machine"
  exit 0
fi

if ! command -v nvidia-smi >/dev/null; then
  echo "gpu-tests.sh: no nvidia-smi: this is meant for the GPU machine" >&2
  exit 2
fi
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
JOBS=$(nproc)

for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
X11LIB=/opt/cg-x11/usr/lib/x86_64-linux-gnu
for f in .gl/x11/*.deb; do dpkg -x "$f" /opt/cg-x11; done
[ -e /usr/share/vulkan/icd.d/nvidia_icd.json ] ||
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -e /usr/share/glvnd/egl_vendor.d/10_nvidia.json ] ||
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
nvidia-smi -L | tee "$OUT/gpu.txt"

# --e2e and --soak: the learner takes its leases in the package's native helper made by
# --prepare, unless $CRAFTGROUND_CAPTURE_NATIVE names another (0: the package's Python rules).
if [ "${1:-}" = "--e2e" ] || [ "${1:-}" = "--soak" ]; then
  [ -n "${CRAFTGROUND_CAPTURE_NATIVE:-}" ] || [ ! -e "$ROOT/build-gpu-jvm/_lease.abi3.so" ] ||
    export CRAFTGROUND_CAPTURE_NATIVE="$ROOT/build-gpu-jvm/_lease.abi3.so"
  echo "== learner's native helper: ${CRAFTGROUND_CAPTURE_NATIVE:-none (the Python rules)}"
fi

# --e2e [ARGS]: the end-to-end benchmark only (docs/benchmarks.md, "End to end"): N game JVMs
# on the jlink'd runtime with the natives built by --prepare, one learner (this python3: torch).
if [ "${1:-}" = "--e2e" ]; then
  shift
  J=$ROOT/build-gpu-jvm
  game="$ROOT/.jre/bin/java -XX:+UseSerialGC -Xmx512m -Djava.library.path=$J"
  game="$game -cp $J/bench_e2e_game_jar.jar:$J/cg_stubs.jar:$J/cg_proto_java.jar:$J/protobuf.jar"
  echo "== bench/e2e/e2e_bench.py $*"
  python3 bench/e2e/e2e_bench.py --game "$game cgbench.E2eGame" "$@" 2>&1 | tee "$OUT/e2e.log"
  exit "${PIPESTATUS[0]}"
fi

# --soak [ARGS]: the soak only (docs/benchmarks.md, "Soak"): 16 game JVMs (free-running unless
# ARGS pace them: --hz), the first 4 with a depth plane, the last 4 GL, one learner (this
# python3: torch), the events of bench/e2e/soak.py's schedule.
if [ "${1:-}" = "--soak" ]; then
  shift
  J=$ROOT/build-gpu-jvm
  java="$ROOT/.jre/bin/java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx256m"
  java="$java -Djava.library.path=$J"
  cp="$J/cg_stubs.jar:$J/cg_proto_java.jar:$J/protobuf.jar"
  echo "== bench/e2e/soak.py $*"
  python3 bench/e2e/soak.py --game "$java -cp $J/bench_e2e_soak_game_jar.jar:$cp cgbench.SoakGame" \
    --gl-game "$java -cp $J/bench_e2e_soak_gl_game_jar.jar:$cp cgtest.SoakGlGame" --gl-games 4 \
    --depth-games 4 "$@" 2>&1 | tee "$OUT/soak.log"
  exit "${PIPESTATUS[0]}"
fi

# libepoxy-dev's epoxy.pc requires x11, egl and gl .pc files that machine
# lacks; epoxy loads libEGL/libGL itself at run time, so stand-ins do (x11's
# names the libX11 the .gl debs bring, for the GLX test).
mkdir -p "$ROOT/build-gpu-pc"
for m in x11 egl gl; do
  libs=
  [ $m = x11 ] && libs="-L$X11LIB -Wl,--disable-new-dtags,-rpath,$X11LIB -lX11"
  printf 'Name: %s\nDescription: stand-in\nVersion: 99\nCflags:\nLibs: %s\n' "$m" "$libs" \
    >"$ROOT/build-gpu-pc/$m.pc"
done
export PKG_CONFIG_PATH="$ROOT/build-gpu-pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

png=ON
pkg-config --exists libpng || png=OFF
# No JDK on that machine: the JVM tests run on the dev machine and in CI.
echo "== configure build-gpu (CUDA on, PNG $png)"
# The Python tests use that machine's python3 (numpy, CuPy, torch).
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCG_WITH_CUDA=ON \
  -DCG_PYTHON3="$(command -v python3)" \
  -DCG_WITH_JNI=OFF -DCG_BUILD_DEMO=OFF -DCG_WITH_PNG=$png -DCMAKE_CUDA_ARCHITECTURES=90 \
  "-DCMAKE_C_FLAGS=-isystem $ROOT/build-deps/include" >"$OUT/configure.log" 2>&1 ||
  { tail -30 "$OUT/configure.log"; exit 1; }
echo "== build"
# Keep going past a failing target so every test that built still runs.
status=0
cmake --build build-gpu -j"$JOBS" -- -k 0 >"$OUT/build.log" 2>&1 ||
  { status=1; echo "build had errors:"; grep -E "error|FAILED" "$OUT/build.log" | head -20; }

# CG_GPU_TESTS=<regex>: only the GPU-labelled tests whose name matches
# (a quick run while iterating); the default runs them all.
echo "== ctest -L 'cuda|vulkan|gl' ${CG_GPU_TESTS:+-R '$CG_GPU_TESTS'}"
# Full output of every test in the log; the summary on stdout.
(cd build-gpu && ctest -L 'cuda|vulkan|gl' ${CG_GPU_TESTS:+-R "$CG_GPU_TESTS"} -V -j1) \
  >"$OUT/ctest.log" 2>&1 || status=1
grep -E "^ *[0-9]+/[0-9]+ Test|tests passed|^[a-z]+ += " "$OUT/ctest.log"
[ $status -eq 0 ] || grep -E "FAIL" "$OUT/ctest.log" | head -40

if [ "${CG_GPU_JVM:-1}" = 1 ] && [ -x .jre/bin/java ] && [ -f build-gpu-jvm/libnative-lib.so ]; then
  echo "== JVM zero-copy tests (jlink'd JRE, natives built on the dev machine)"
  J=build-gpu-jvm
  CP=$J/cg_stubs.jar:$J/protobuf.jar
  for t in "jvm_zerocopy_lifecycle cgtest.ZeroCopyLifecycleTest" \
           "jvm_cuda_zerocopy cgtest.ZeroCopyGpuTest $ROOT/tests/python/consumer.py" \
           "jvm_cuda_gl_zerocopy cgtest.GlZeroCopyGpuTest $ROOT/tests/python/consumer.py" \
           "jvm_vk_ring cgtest.RingJniTest $ROOT/build-gpu/tests/vulkan/test_zc_ring python3 $ROOT/tests/python/test_ring.py" \
           "jvm_gl_ring cgtest.GlRingJniTest $ROOT/build-gpu/tests/vulkan/test_zc_ring"; do
    set -- $t
    name=$1; shift
    .jre/bin/java -Xcheck:jni -Djava.library.path=$J -cp "$J/${name}_jar.jar:$CP" "$@" \
      >"$OUT/$name.log" 2>&1
    rc=$?
    if grep -qE "WARNING in native method|FATAL ERROR in native method" "$OUT/$name.log"; then rc=1; fi
    case $rc in 0) r=Passed ;; 77) r=SKIPPED ;; *) r="FAILED (rc $rc)"; status=1 ;; esac
    echo "  $name: $r ($(grep -c '^ok' "$OUT/$name.log") checks ok)"
    [ $rc -eq 0 ] || [ $rc -eq 77 ] || grep -E "FAIL|Exception|Error" "$OUT/$name.log" | head -20
  done
fi

if [ "${CG_GPU_BENCH:-1}" = 1 ]; then
  echo "== zero-copy benchmarks"
  # bench_gl (the GL readback benchmark) too: the same machine, same run.
  # CG_GPU_BENCHES="name ...": only these (default: all of them).
  for b in ${CG_GPU_BENCHES:-bench_zerocopy_vk bench_zerocopy_gl bench_gl bench_zerocopy_v2 bench_vulkan_rgb bench_zerocopy_gl_ring}; do
    b=build-gpu/bench/$b
    [ -x "$b" ] || continue
    echo "-- $b"
    "$b" 2>&1 | tee -a "$OUT/bench.log"
  done
  # The learner on another GPU than its games (docs/zero-copy-v2/learner.md, "Learner and
  # games on different GPUs"): on a machine with 2 GPUs (nvidia-h200-x2) only;
  # CG_GPU_BENCHES names it cross_gpu.
  if [ "$(nvidia-smi -L | grep -c '^GPU')" -ge 2 ] &&
     [[ " ${CG_GPU_BENCHES:-cross_gpu} " == *" cross_gpu "* ]]; then
    echo "-- bench/cross_gpu.py"
    python3 bench/cross_gpu.py build-gpu/tests/vulkan/test_zc_ring 2>&1 | tee -a "$OUT/bench.log"
  fi
fi
exit $status
