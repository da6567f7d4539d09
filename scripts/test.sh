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
# testdata/ must be exactly what the generator makes, and every committed file must check out
# with both builds (hash rows across compilers and optimisation levels).
stage "testdata: regenerate with gcc-O2 and compare"
gen_dir=$(mktemp -d)
trap 'rm -rf "$gen_dir"' EXIT
build/gcc-O2/tools/onescope -q gen-testdata "$gen_dir"
differ=()
for f in "$gen_dir"/*; do
    name=$(basename "$f")
    cmp -s "$f" "testdata/$name" || differ+=("$name")
done
for f in testdata/*; do
    name=$(basename "$f")
    [ "$name" = README.md ] || [ -e "$gen_dir/$name" ] || differ+=("$name (not generated)")
done
if [ ${#differ[@]} -ne 0 ]; then
    echo "testdata/ differs from 'onescope gen-testdata' in: ${differ[*]}" >&2
    echo "(regenerate with: build/gcc-O2/tools/onescope gen-testdata testdata, and say why in the commit)" >&2
    exit 1
fi
echo "all $(ls "$gen_dir" | wc -l) files are byte for byte the generator's"
for build in gcc-O2 clang-O0; do
    stage "testdata: verify and validate with $build"
    build/$build/tools/onescope verify testdata/*.ostm
    build/$build/tools/onescope validate $(ls testdata/* | grep -v README.md)
done
stage "testdata: the same bytes and hash rows on s390x (big-endian, qemu) and i386"
bash scripts/test_testdata_cross.sh

stage "all stages passed"
