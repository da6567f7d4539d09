# validate and verify stream large files: under a 64 MiB address-space cap (which the old
# whole-file read of these files exceeds) good files pass and bad files get the same one line
# as the whole-file path (standard input: onescope_file_read and the parser). validate streams
# standard input and pipes too, under the same cap, with the same lines.
. "$(dirname "$0")/common.sh"

# A cache of 4 M frames x 1 entity (112 MiB) and a replay of 4 M empty steps with (wrong, all
# zero) hash rows (40 MiB; read whole it would take 88 MiB).
python3 - "$SCRATCH" <<'PY'
import struct, sys
d = sys.argv[1]
frames = steps = 4 * 1024 * 1024
with open(d + '/big.ospc', 'wb') as o:
    o.write(b'OSPC' + struct.pack('<HHB3xIIqd', 1, 0, 3, 1, frames, 0, 1.0))
    o.write(b'\x00\x00' * 6)
    o.write(struct.pack('<QB3x3fH', 1, 0, 1.0, 1.0, 1.0, 0))
    o.write(struct.pack('<7f', 0, 0, 0, 0, 0, 0, 1) * frames)
with open(d + '/big.ostm', 'wb') as o:
    o.write(b'OSTM' + struct.pack('<HHIBBII', 1, 1, 6, 3, 1, 1, steps))
    o.write(b'\x00' * (8 * (steps + 1)))
    o.write(b'\x00\x00' * steps)
PY

# The cap, where the binary runs under it (sanitizer runtimes and valgrind reserve far more
# address space; then the lines are still compared, without the cap).
CAP=65536
# Every run is under a timeout (far above its time on a loaded machine): a command that waits
# on a pipe fails the test instead of hanging it.
T=600
if (ulimit -v $CAP && timeout $T "$ONESCOPE" --version) >/dev/null 2>&1; then
    capped() { (ulimit -v $CAP && exec timeout $T "$@"); }
else
    echo "note: the binary cannot run under ulimit -v $CAP; comparing lines without the cap"
    capped() { timeout $T "$@"; }
fi

expect_exit 0 capped "$ONESCOPE" validate "$SCRATCH/big.ospc" "$SCRATCH/big.ostm"
expect_grep "big.ospc: valid ospc" "$SCRATCH/out"
expect_grep "big.ostm: valid ostm" "$SCRATCH/out"
for f in big.ospc big.ostm; do
    expect_exit 0 capped "$ONESCOPE" validate - <"$SCRATCH/$f"
    expect_grep "<stdin>: valid " "$SCRATCH/out"
    if cat "$SCRATCH/$f" | capped "$ONESCOPE" validate - >"$SCRATCH/out" 2>&1; then ok; else
        bad "cat $f | validate -: $(head -n 2 "$SCRATCH/out")"; fi
    # a named pipe too, whichever of reader and writer opens it first (the reader waits for
    # its writer; the writer, given up after a while, can never be left blocked)
    rm -f "$SCRATCH/fifo" && mkfifo "$SCRATCH/fifo"
    feed "$SCRATCH/fifo" "$SCRATCH/$f"
    expect_exit 0 capped "$ONESCOPE" validate "$SCRATCH/fifo"
    wait
done
# verify streams too: the run gets to the first row, which is wrong.
expect_exit 1 capped "$ONESCOPE" verify "$SCRATCH/big.ostm"
expect_grep "big.ostm: hash row 0 (the start world): expected 0000000000000000, found " "$SCRATCH/err"
# and from standard input or a pipe (spooled to a scratch file in $TMPDIR, then read as a file;
# read whole, the 40 MiB replay would not fit under the cap)
expect_exit 1 capped "$ONESCOPE" verify - <"$SCRATCH/big.ostm"
expect_grep "<stdin>: hash row 0 (the start world): expected 0000000000000000, found " "$SCRATCH/err"
if cat "$SCRATCH/big.ostm" | capped "$ONESCOPE" verify - >"$SCRATCH/out" 2>"$SCRATCH/err"; then
    bad "cat big.ostm | verify - passed"
else
    expect_grep "<stdin>: hash row 0 (the start world): expected 0000000000000000, found " "$SCRATCH/err"
fi
# a pipe over the limit is refused as the read path refuses it, and leaves no scratch behind
mkdir -p "$SCRATCH/tmp"
head -c 300000000 /dev/zero | TMPDIR="$SCRATCH/tmp" timeout $T "$ONESCOPE" verify - >"$SCRATCH/out" 2>"$SCRATCH/err"
expect_grep "<stdin>: .*limit" "$SCRATCH/err"
[ "$(grep -c '^<stdin>:' "$SCRATCH/err")" -eq 1 ] && ok || bad "verify of an endless pipe: not one line"
[ -z "$(ls -A "$SCRATCH/tmp")" ] && ok || bad "verify - left a scratch file in TMPDIR"

# same_line CMD FILE: the first line CMD prints for FILE under the cap equals the one it
# prints for the same bytes read whole (onescope_file_read, then the parser: rewrite reads
# that way), and, for validate, the one it prints for them from a pipe, under
# the cap, names aside.
same_line() {
    local cmd=$1 file=$2
    capped "$ONESCOPE" "$cmd" "$file" >/dev/null 2>"$SCRATCH/streamed"
    if [ "$cmd" = validate ]; then
        timeout $T "$ONESCOPE" rewrite "$file" "$SCRATCH/rewritten" >/dev/null 2>"$SCRATCH/whole"
        cat "$file" | capped "$ONESCOPE" validate - >/dev/null 2>"$SCRATCH/piped"
    else
        timeout $T "$ONESCOPE" "$cmd" - <"$file" >/dev/null 2>"$SCRATCH/whole"
        cp "$SCRATCH/streamed" "$SCRATCH/piped"
    fi
    local a b c
    a=$(head -n 1 "$SCRATCH/streamed")
    b=$(head -n 1 "$SCRATCH/whole" | sed "s|^<stdin>|$file|")
    c=$(head -n 1 "$SCRATCH/piped" | sed "s|^<stdin>|$file|")
    if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ]; then ok; else
        bad "$cmd $file: '$a' vs whole '$b' vs piped '$c'"; fi
}

# Bad caches: one byte short, one byte more, an infinite value in the last pose.
python3 - "$SCRATCH" <<'PY'
import shutil, sys
d = sys.argv[1]
data = open(d + '/big.ospc', 'rb').read()
open(d + '/short.ospc', 'wb').write(data[:-1])
open(d + '/long.ospc', 'wb').write(data + b'x')
open(d + '/inf.ospc', 'wb').write(data[:-8] + b'\x00\x00\x80\x7f' + data[-4:])
r = open(d + '/big.ostm', 'rb').read()
open(d + '/short.ostm', 'wb').write(r[:-1])
open(d + '/long.ostm', 'wb').write(r + b'x')
# the last step: one byte, an unknown operation code
open(d + '/badop.ostm', 'wb').write(r[:-2] + b'\x01\x00\xff')
PY
for f in short long inf; do same_line validate "$SCRATCH/$f.ospc"; done
for f in short long badop; do
    same_line validate "$SCRATCH/$f.ostm"
    same_line verify "$SCRATCH/$f.ostm"
done
expect_exit 1 capped "$ONESCOPE" validate "$SCRATCH/inf.ospc"
expect_grep "inf.ospc: offset 117440578: frame 4194303 entity 0 rotation z: " "$SCRATCH/err"

# recover streams too: the big cache made a partial again (the count back to the marker)
# recovers under the cap to the same bytes.
python3 - "$SCRATCH" <<'PY'
import sys
d = sys.argv[1]
data = bytearray(open(d + '/big.ospc', 'rb').read())
data[16:20] = b'\xff\xff\xff\xff'
open(d + '/big2.ospc.partial', 'wb').write(data)
PY
expect_exit 0 capped "$ONESCOPE" recover "$SCRATCH/big2.ospc.partial"
if cmp -s "$SCRATCH/big2.ospc" "$SCRATCH/big.ospc"; then ok; else
    bad "recover of the big partial did not give the cache back"
fi
rm -f "$SCRATCH/big2.ospc" "$SCRATCH/big2.ospc.partial"

# An input of no known format longer than the read buffer, from a pipe: the line names its
# first four bytes, not those of the last buffer read while its size was counted.
(printf 'WXYZ'; head -c 3000000 /dev/zero | tr '\0' q) >"$SCRATCH/unknown.bin"
if cat "$SCRATCH/unknown.bin" | timeout $T "$ONESCOPE" validate - >"$SCRATCH/out" 2>"$SCRATCH/err"; then
    bad "validate - of an unknown format passed"
else
    ok
fi
expect_grep "<stdin>: offset 0: format: .*found bytes 57 58 59 5a" "$SCRATCH/err"
finish
