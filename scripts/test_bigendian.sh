#!/usr/bin/env bash
# Determinism across byte order and word size: builds tests/bigendian/be_driver.c with the
# library's sources for the host, for s390x (big-endian, static, run under qemu) and for i386
# (gcc -m32: 32-bit size_t and long), and requires identical output: the same hash rows,
# replay bytes, snapshot restores and fields. A target whose compiler is missing prints
# SKIPPED (install gcc-s390x-linux-gnu, libc6-dev-s390x-cross, qemu-user and gcc-12-multilib,
# as scripts/deps.sh does when run as root; the gcc-multilib metapackage would remove the
# s390x cross compiler, gcc-12-multilib does not).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/bigendian
mkdir -p "$out/include"
# xxhash.h is header-only here (XXH_INLINE_ALL); a cross compiler does not search the host's
# /usr/include, so give it just that header.
cp /usr/include/xxhash.h "$out/include/"
srcs=(src/sim.c src/replay.c src/bytes.c src/error.c src/alloc.c src/file.c tests/bigendian/be_driver.c)
flags=(-std=c17 -O2 -Wall -Wextra -Werror -ffp-contract=off -DONESCOPE_STATIC -D_POSIX_C_SOURCE=200809L
       -Iinclude -Isrc -I"$out/include")
gcc "${flags[@]}" "${srcs[@]}" -o "$out/be_native"
"$out/be_native" >"$out/native.txt"
if ! grep -q '^done$' "$out/native.txt"; then
    echo "determinism check: the native driver failed:"; cat "$out/native.txt"; exit 1
fi
status=0
compare() { # NAME OUTPUT
    if diff -u "$out/native.txt" "$2"; then
        echo "determinism check: $1 output identical to the host's ($(grep -c row "$2") hash rows)"
    else
        echo "determinism check: $1 differs from the host"
        status=1
    fi
}

cross=s390x-linux-gnu-gcc
if command -v "$cross" >/dev/null && command -v qemu-s390x >/dev/null; then
    "$cross" "${flags[@]}" -static "${srcs[@]}" -o "$out/be_s390x"
    qemu-s390x "$out/be_s390x" >"$out/s390x.txt" || true
    compare "s390x (big-endian)" "$out/s390x.txt"
else
    echo "SKIPPED: $cross or qemu-s390x not installed (big-endian check not run)"
fi

if echo 'int main(void){return 0;}' | gcc -m32 -x c - -o "$out/m32probe" 2>/dev/null; then
    # Without the gcc-multilib metapackage /usr/include/asm is missing; the host's x86 asm
    # headers are the same for i386.
    gcc -m32 "${flags[@]}" -idirafter "/usr/include/$(gcc -print-multiarch)" "${srcs[@]}" \
        -o "$out/be_i386"
    "$out/be_i386" >"$out/i386.txt" || true
    compare "i386 (32-bit)" "$out/i386.txt"
else
    echo "SKIPPED: gcc -m32 cannot link (gcc-12-multilib not installed; i386 check not run)"
fi
exit $status
