#!/usr/bin/env bash
# The whole test suite, as CI runs it: gcc and clang builds (warnings are errors), ctest on
# each. Stages print a banner; any failure stops the script with a non-zero exit.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)

stage() { printf '\n==== %s ====\n' "$*"; }

build_and_test() { # NAME CC BUILD_TYPE [cmake args...]
    local name=$1 cc=$2 type=$3
    shift 3
    stage "$name: build ($cc, $type)"
    cmake -S . -B "build/$name" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$type" \
        -DONESCOPE_WERROR=ON "$@" >/dev/null
    cmake --build "build/$name" -j"$jobs" >/dev/null
    stage "$name: ctest"
    (cd "build/$name" && ctest --output-on-failure -j"$jobs")
}

build_and_test gcc-O2 gcc Release
build_and_test clang-O0 clang Debug
# Box3D is optional: everything must build and pass without it (the SoA tests report skipped).
build_and_test gcc-no-box3d gcc Debug -DONESCOPE_WITH_BOX3D=OFF

stage "determinism: s390x (big-endian, qemu) and i386 hash rows"
bash scripts/test_bigendian.sh

stage "all stages passed"
