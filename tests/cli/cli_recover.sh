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
finish
