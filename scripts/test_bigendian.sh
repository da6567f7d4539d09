#!/usr/bin/env bash
# Big-endian determinism: builds tests/bigendian/be_driver.c with the library's sources for the
# host and for s390x (static, run under qemu-s390x), and requires identical output: the same
# hash rows, replay bytes, snapshot restores and fields. Prints SKIPPED and exits 0 when the
# cross compiler or qemu is missing (install gcc-s390x-linux-gnu, libc6-dev-s390x-cross and
# qemu-user, as scripts/deps.sh does when run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
cross=s390x-linux-gnu-gcc
if ! command -v "$cross" >/dev/null || ! command -v qemu-s390x >/dev/null; then
    echo "SKIPPED: $cross or qemu-s390x not installed (big-endian check not run)"
    exit 0
fi
out=build/bigendian
mkdir -p "$out/include"
# xxhash.h is header-only here (XXH_INLINE_ALL); the cross compiler does not search the host's
# /usr/include, so give it just that header.
cp /usr/include/xxhash.h "$out/include/"
srcs=(src/sim.c src/replay.c src/bytes.c src/error.c src/alloc.c src/file.c tests/bigendian/be_driver.c)
flags=(-std=c17 -O2 -Wall -Wextra -Werror -ffp-contract=off -DONESCOPE_STATIC -D_POSIX_C_SOURCE=200809L
       -Iinclude -Isrc -I"$out/include")
gcc "${flags[@]}" "${srcs[@]}" -o "$out/be_native"
"$cross" "${flags[@]}" -static "${srcs[@]}" -o "$out/be_s390x"
"$out/be_native" >"$out/native.txt"
qemu-s390x "$out/be_s390x" >"$out/s390x.txt"
if ! grep -q '^done$' "$out/native.txt"; then
    echo "big-endian check: the native driver failed:"; cat "$out/native.txt"; exit 1
fi
if diff -u "$out/native.txt" "$out/s390x.txt"; then
    echo "big-endian check: s390x output identical to the host's ($(grep -c row "$out/native.txt") hash rows)"
else
    echo "big-endian check: s390x differs from the host"
    exit 1
fi
