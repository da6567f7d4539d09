# validate and verify stream large files: under a 64 MiB address-space cap (which the old
# whole-file read of these files exceeds) good files pass and bad files get the same one line
# as the whole-file path (standard input: onescope_file_read and the parser).
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
if (ulimit -v $CAP && "$ONESCOPE" --version) >/dev/null 2>&1; then
    capped() { (ulimit -v $CAP && "$@"); }
else
    echo "note: the binary cannot run under ulimit -v $CAP; comparing lines without the cap"
    capped() { "$@"; }
fi

expect_exit 0 capped "$ONESCOPE" validate "$SCRATCH/big.ospc" "$SCRATCH/big.ostm"
expect_grep "big.ospc: valid ospc" "$SCRATCH/out"
expect_grep "big.ostm: valid ostm" "$SCRATCH/out"
# verify streams too: the run gets to the first row, which is wrong.
expect_exit 1 capped "$ONESCOPE" verify "$SCRATCH/big.ostm"
expect_grep "big.ostm: hash row 0 (step 0): expected 0000000000000000, found " "$SCRATCH/err"

# same_line CMD FILE: the first line CMD prints for FILE under the cap equals the one it
# prints for the same bytes on standard input (read whole, no cap), names aside.
same_line() {
    local cmd=$1 file=$2
    capped "$ONESCOPE" "$cmd" "$file" >/dev/null 2>"$SCRATCH/streamed"
    "$ONESCOPE" "$cmd" - <"$file" >/dev/null 2>"$SCRATCH/whole"
    local a b
    a=$(head -n 1 "$SCRATCH/streamed")
    b=$(head -n 1 "$SCRATCH/whole" | sed "s|^<stdin>|$file|")
    if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "$cmd $file: '$a' vs whole '$b'"; fi
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
finish
