#!/usr/bin/env bash
# The mod developer's command: install what the library's build needs, build
# libnative-lib, its natives jar and the API jar, and write them as a local
# Maven repository a mod's Gradle or Maven build reads. Nothing else is built
# (no tests, benchmarks or demo).
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: bash scripts/jars.sh [--build DIR]

Installs the packages of install-deps.sh's demo profile that are missing
(compiler, CMake, a JDK, protoc + protobuf-java, libepoxy; run as root on
Debian 12), builds libnative-lib, the natives jar of this platform and the API
jar (Release), and writes the local Maven repository DIR/maven. Prints the
repository's path, its artifacts and the Gradle lines that use it.

  --build DIR   build folder (default build-jars in the repository)
  -h, --help    print this help and exit

docs/mod-integration.md says how a mod uses the repository.
USAGE
}

die() {
  echo "jars.sh: $*" >&2
  exit 2
}

build=
while (($#)); do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --build=*) build=${1#*=} ;;
    --build) (($# >= 2)) || die "--build needs a folder (see --help)"; build=$2; shift ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift
done
[ -n "${build:-x}" ] || die "--build needs a folder (see --help)"
case $build in /*) ;; '') build=$(cd "$(dirname "$0")/.." && pwd)/build-jars ;; *) build=$PWD/$build ;; esac

cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

bash scripts/install-deps.sh demo

echo "== build (Release): libnative-lib, natives jar, API jar, Maven repository"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCG_BUILD_TESTS=OFF -DCG_BUILD_BENCH=OFF \
  -DCG_BUILD_DEMO=OFF >/dev/null
cmake --build "$build" -j"$JOBS" --target cg_maven_repo

repo=$build/maven
echo "== the local Maven repository: $repo"
(cd "$repo" && find . -name '*.jar' | sed 's|^\./|  |' | sort)
version=$(sed -n 's/^project([A-Za-z_]* VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
natives=$(cd "$repo/com/kyhsgeekcode" && ls -d minecraft-capture-natives-* | head -n 1)
cat <<EOF
Gradle (Kotlin DSL):
  repositories { maven { url = uri("$repo") } }
  dependencies {
      implementation("com.kyhsgeekcode:minecraft-capture-api:$version")
      runtimeOnly("com.kyhsgeekcode:$natives:$version")
  }
EOF
