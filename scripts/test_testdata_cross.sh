#!/usr/bin/env bash
# testdata/ across byte order and word size: builds tests/bigendian/testdata_driver.c with the
# library's sources for the host, for s390x (big-endian, static, under qemu) and for i386
# (gcc -m32), and requires identical output: every generated file's size and XXH3-64 (so the
# generator writes the same bytes everywhere) and every committed replay verified. A target
# whose compiler is missing prints SKIPPED (scripts/test_bigendian.sh says what to install).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/testdata-cross
mkdir -p "$out/include"
cp /usr/include/xxhash.h "$out/include/"
srcs=(src/sim.c src/replay.c src/bytes.c src/error.c src/alloc.c src/file.c src/pose_cache.c
      src/live.c src/ghost.c src/testdata.c tests/bigendian/testdata_driver.c)
flags=(-std=c17 -O2 -Wall -Wextra -Werror -ffp-contract=off -DONESCOPE_STATIC -D_POSIX_C_SOURCE=200809L
       -Iinclude -Isrc -I"$out/include")
replays=(testdata/*.ostm)
gcc "${flags[@]}" "${srcs[@]}" -o "$out/native" -lm
"$out/native" "${replays[@]}" >"$out/native.txt"
if ! grep -q '^done$' "$out/native.txt"; then
    echo "testdata cross check: the native driver failed:"; cat "$out/native.txt"; exit 1
fi
status=0
compare() { # NAME OUTPUT
    if diff -u "$out/native.txt" "$2"; then
        echo "testdata cross check: $1 makes the same $(grep -c '^file' "$2") files and verifies $(grep -c '^verify' "$2") replays"
    else
        echo "testdata cross check: $1 differs from the host"
        status=1
    fi
}
if command -v s390x-linux-gnu-gcc >/dev/null && command -v qemu-s390x >/dev/null; then
    s390x-linux-gnu-gcc "${flags[@]}" -static "${srcs[@]}" -o "$out/s390x" -lm
    qemu-s390x "$out/s390x" "${replays[@]}" >"$out/s390x.txt" || true
    compare "s390x (big-endian)" "$out/s390x.txt"
else
    echo "SKIPPED: s390x-linux-gnu-gcc or qemu-s390x not installed (big-endian testdata check not run)"
fi
if echo 'int main(void){return 0;}' | gcc -m32 -x c - -o "$out/m32probe" 2>/dev/null; then
    gcc -m32 "${flags[@]}" -idirafter "/usr/include/$(gcc -print-multiarch)" "${srcs[@]}" \
        -o "$out/i386" -lm
    "$out/i386" "${replays[@]}" >"$out/i386.txt" || true
    compare "i386 (32-bit)" "$out/i386.txt"
else
    echo "SKIPPED: gcc -m32 cannot link (i386 testdata check not run)"
fi
exit $status
