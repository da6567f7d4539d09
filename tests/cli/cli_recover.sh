# onescope recover PARTIAL [OUT]: the frames kept, the default name, a torn frame dropped,
# files that are not partials refused with one line and left as they were, usage errors.
. "$(dirname "$0")/common.sh"

# A partial by hand: a one-entity head with frame count 0xffffffff, 3 frames and 10 bytes.
python3 - "$SCRATCH/run.ospc.partial" <<'PY'
import struct, sys
out = open(sys.argv[1], 'wb')
out.write(b'OSPC' + struct.pack('<HHBBHIIqd', 1, 0, 3, 0, 0, 1, 0xFFFFFFFF, 7, 0.0))
out.write(b'\x00\x00' * 6)
out.write(struct.pack('<QB3x3fH', 1, 0, 0.0, 0.0, 0.0, 0))
for f in range(3):
    out.write(struct.pack('<7f', f, 0, 0, 0, 0, 0, 1))
out.write(b'\x01' * 10)
PY
cp "$SCRATCH/run.ospc.partial" "$SCRATCH/copy"
expect_exit 0 "$ONESCOPE" recover "$SCRATCH/run.ospc.partial"
expect_grep "run.ospc.partial: kept 3 complete frames" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" validate "$SCRATCH/run.ospc"
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/run.ospc"
expect_grep "3" "$SCRATCH/out"
if cmp -s "$SCRATCH/run.ospc.partial" "$SCRATCH/copy"; then ok; else bad "the partial changed"; fi
# An explicit OUT; -q prints nothing.
expect_exit 0 "$ONESCOPE" -q recover "$SCRATCH/run.ospc.partial" "$SCRATCH/other.ospc"
[ -s "$SCRATCH/out" ] && bad "-q printed: $(cat "$SCRATCH/out")" || ok
cmp -s "$SCRATCH/run.ospc" "$SCRATCH/other.ospc" && ok || bad "OUT differs from the default"

# A finished cache is not a partial: one line naming it and offset 16, nothing written.
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/run.ospc" "$SCRATCH/never.ospc"
expect_grep "run.ospc: offset 16: frame count: expected the partial-recording marker" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && ok || bad "more than one line: $(cat "$SCRATCH/err")"
[ -e "$SCRATCH/never.ospc" ] && bad "never.ospc was created" || ok
printf 'not a recording' >"$SCRATCH/junk.partial"
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/junk.partial"
expect_grep "junk.partial: offset 0: magic" "$SCRATCH/err"
[ -e "$SCRATCH/junk" ] && bad "junk was created" || ok
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/copy"
expect_grep "expected one given, or a partial name ending in \".partial\"" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/missing.partial"
expect_grep "missing.partial" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/copy" "$SCRATCH/copy"
expect_grep "refusing to overwrite the input" "$SCRATCH/err"

# Usage.
expect_exit 0 "$ONESCOPE" recover --help
expect_grep "usage: onescope recover PARTIAL \[OUT\]" "$SCRATCH/out"
expect_exit 2 "$ONESCOPE" recover
expect_exit 2 "$ONESCOPE" recover a b c
expect_exit 2 "$ONESCOPE" recover --nope
expect_exit 0 "$ONESCOPE" recover -- "$SCRATCH/run.ospc.partial" "$SCRATCH/dash.ospc"
# Round three (docs/hardening.md, "### writers").
# No complete frame: said at the first frame's offset (74 here), not as a short head.
head -c 84 "$SCRATCH/copy" >"$SCRATCH/noframe.ospc.partial"
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/noframe.ospc.partial"
expect_grep "noframe.ospc.partial: offset 74: poses: expected at least one complete frame" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && ok || bad "more than one line: $(cat "$SCRATCH/err")"
# validate of a partial says it is one and names recover, in one line (both formats).
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/copy"
expect_grep "copy: offset 16: frame count: .*a partial recording (onescope recover" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && ok || bad "more than one line: $(cat "$SCRATCH/err")"
OSTM_SEEDS="$SRC/tests/fuzz/corpus/ostm_recover"
expect_exit 1 "$ONESCOPE" validate "$OSTM_SEEDS/partial-2d"
expect_grep "partial-2d: offset 18: step count: .*a partial recording (onescope recover" "$SCRATCH/err"
# recover P - is refused by both recoveries alike (a recovery is written atomically): no
# file named "-", nothing on stdout.
cp "$OSTM_SEEDS/partial-2d" "$SCRATCH/dash.ostm.partial"
for p in "$SCRATCH/run.ospc.partial" "$SCRATCH/dash.ostm.partial"; do
    (cd "$SCRATCH" && expect_exit 1 "$ONESCOPE" recover "$p" -)
    expect_grep 'not "-": a recovery is written atomically' "$SCRATCH/err"
    [ -s "$SCRATCH/out" ] && bad "recover to - printed" || ok
    [ -e "$SCRATCH/-" ] && bad "a file named - was made" || ok
done
# A replay killed before its first step: recover says so.
head -c 30 "$OSTM_SEEDS/partial-2d" >"$SCRATCH/nostep.ostm.partial"
expect_exit 0 "$ONESCOPE" recover "$SCRATCH/nostep.ostm.partial"
expect_grep "kept 0 complete steps in .*nostep.ostm (no step was recorded" "$SCRATCH/out"
# A record damaged in the middle (a length of 65535 with records after it) is reported at
# its offset, nothing written, the partial kept; a torn end is still dropped quietly.
python3 - "$OSTM_SEEDS/partial-2d" "$SCRATCH/mid.ostm.partial" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[32:34] = b'\xff\xff'  # the first record's length, 5 whole records after it
open(sys.argv[2], 'wb').write(b)
PY
expect_exit 1 "$ONESCOPE" recover "$SCRATCH/mid.ostm.partial"
expect_grep "mid.ostm.partial: offset 32: step input length: expected a whole record, or a last one cut by the end of the file" "$SCRATCH/err"
[ -e "$SCRATCH/mid.ostm" ] && bad "output made for a damaged partial" || ok
# Names of 248-255 bytes record through a shortened partial (ghost writes with the pose
# writer): the cache lands under the full name, no partial is left.
expect_exit 0 "$ONESCOPE" -q recover "$SCRATCH/dash.ostm.partial" "$SCRATCH/dash.ostm"
for n in 248 255; do
    long=$(python3 -c "print('g' * ($n - 5) + '.ospc')")
    expect_exit 0 "$ONESCOPE" ghost "$SCRATCH/dash.ostm" "$SCRATCH/$long" --from 0 --frames 3
    expect_exit 0 "$ONESCOPE" validate "$SCRATCH/$long"
    ls "$SCRATCH" | grep -q 'partial$' && ls "$SCRATCH" | grep -q '^ggg.*partial$' && bad "a partial left" || ok
    rm -f "$SCRATCH/$long"
done

finish
