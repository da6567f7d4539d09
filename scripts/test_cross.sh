#!/usr/bin/env bash
# Determinism across byte order and word size. One CMake project (tests/bigendian/) builds the
# library's sources, as cmake/sources.cmake lists them, with two drivers for the host, for
# s390x (big-endian, static, run under qemu; cmake/toolchains/s390x-linux-gnu.cmake) and for
# i386 (gcc -m32: 32-bit size_t and long; cmake/toolchains/i386-linux-gnu.cmake). Each check
# requires every target's output to be the host's, line for line:
#   determinism  tests/bigendian/be_driver.c: hash rows, replay bytes, snapshot restores, fields
#   testdata     tests/bigendian/testdata_driver.c: every generated file's size and XXH3-64 (the
#                generator writes the same bytes everywhere), every committed replay verified
# Usage: scripts/test_cross.sh [determinism|testdata]...  (no argument: both)
# A target whose compiler (or qemu) is missing prints SKIPPED: install gcc-s390x-linux-gnu,
# libc6-dev-s390x-cross, qemu-user and gcc-12-multilib, as scripts/deps.sh does when run as
# root (the gcc-multilib metapackage would remove the s390x cross compiler; gcc-12-multilib
# does not).
set -euo pipefail
cd "$(dirname "$0")/.."
checks=("$@")
[ ${#checks[@]} -gt 0 ] || checks=(determinism testdata)
for c in "${checks[@]}"; do
    case $c in
    determinism | testdata) ;;
    *) echo "test_cross.sh: unknown check '$c'" >&2; exit 2 ;;
    esac
done
root=$PWD

build() { # NAME [cmake args...]: configure and build build/cross-NAME quietly
    local name=$1
    shift
    cmake -S tests/bigendian -B "build/cross-$name" "$@" >"build/cross-$name.log" 2>&1 &&
        cmake --build "build/cross-$name" -j2 >>"build/cross-$name.log" 2>&1 ||
        { echo "cross build $name failed:"; tail -30 "build/cross-$name.log"; exit 1; }
}

mkdir -p build
targets=(native)
build native
if command -v s390x-linux-gnu-gcc >/dev/null && command -v qemu-s390x >/dev/null; then
    build s390x -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/s390x-linux-gnu.cmake"
    targets+=(s390x)
else
    echo "SKIPPED: s390x-linux-gnu-gcc or qemu-s390x not installed (big-endian checks not run)"
fi
if echo 'int main(void){return 0;}' | gcc -m32 -x c - -o build/m32probe 2>/dev/null; then
    build i386 -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/i386-linux-gnu.cmake"
    targets+=(i386)
else
    echo "SKIPPED: gcc -m32 cannot link (gcc-12-multilib not installed; i386 checks not run)"
fi

run() { # TARGET DRIVER [args...]: the driver's output on stdout (under qemu for s390x)
    local t=$1 driver=$2
    shift 2
    if [ "$t" = s390x ]; then qemu-s390x "build/cross-$t/$driver" "$@" || true
    else "build/cross-$t/$driver" "$@" || true; fi
}

label() { case $1 in s390x) echo "s390x (big-endian)";; i386) echo "i386 (32-bit)";; esac; }

status=0
for check in "${checks[@]}"; do
    out=build/cross-results/$check
    mkdir -p "$out"
    if [ "$check" = determinism ]; then driver=be_driver args=(); else
        driver=testdata_driver args=(testdata/*.ostm); fi
    run native "$driver" "${args[@]}" >"$out/native.txt"
    if ! grep -q '^done$' "$out/native.txt"; then
        echo "$check check: the native driver failed:"; cat "$out/native.txt"; exit 1
    fi
    for t in "${targets[@]:1}"; do
        run "$t" "$driver" "${args[@]}" >"$out/$t.txt"
        if ! diff -u "$out/native.txt" "$out/$t.txt"; then
            echo "$check check: $(label "$t") differs from the host"
            status=1
        elif [ "$check" = determinism ]; then
            echo "determinism check: $(label "$t") output identical to the host's" \
                "($(grep -c row "$out/$t.txt") hash rows)"
        else
            echo "testdata cross check: $(label "$t") makes the same" \
                "$(grep -c '^file' "$out/$t.txt") files and verifies" \
                "$(grep -c '^verify' "$out/$t.txt") replays"
        fi
    done
done
exit $status
