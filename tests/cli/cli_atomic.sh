# Atomic output: `onescope rewrite` killed with SIGKILL at any moment leaves OUT either as
# it was or complete, never torn; a normal failure leaves no temporary file behind.
# The kills use the bare binary (a wrapper such as valgrind would take the signal instead).
. "$(dirname "$0")/common.sh"

# A ~64 MB valid cache: 600 entities x 4000 frames x 28 bytes = 67.2 MB of poses.
python3 - "$SCRATCH/big.ospc" <<'PY'
import struct, sys
ents, frames = 600, 4000
out = open(sys.argv[1], 'wb')
out.write(b'OSPC' + struct.pack('<HHBBHIIqd', 1, 0, 3, 0, 0, ents, frames, 0, 0.0))
out.write(b'\x00\x00' * 6)
for i in range(ents):
    out.write(struct.pack('<QB3x3fH', i + 1, 1, 0.5, 0.0, 0.0, 1) + b'e')
out.write(struct.pack('<7f', 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0) * (ents * frames))
PY
expect_exit 0 "$ONESCOPE_BIN" validate "$SCRATCH/big.ospc"
big_size=$(stat -c %s "$SCRATCH/big.ospc")
printf 'old content: must survive any interrupted write\n' >"$SCRATCH/old"
out="$SCRATCH/out.ospc"

# check_out LABEL: OUT must equal the old content or the complete new file.
kept_old=0 got_new=0 mid_write=0
check_out() {
    if cmp -s "$out" "$SCRATCH/old"; then kept_old=$((kept_old + 1)); ok
    elif cmp -s "$out" "$SCRATCH/big.ospc"; then got_new=$((got_new + 1)); ok
    else bad "$1: $out is torn ($(stat -c %s "$out") bytes)"; fi
}

# Kill after a range of delays, and once as soon as the temporary file appears.
for delay in 0 0.005 0.01 0.02 0.05 0.1 0.2 0.3 0.5 0.8 1.2; do
    cp "$SCRATCH/old" "$out"
    "$ONESCOPE_BIN" rewrite "$SCRATCH/big.ospc" "$out" &
    pid=$!
    sleep "$delay"
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    check_out "SIGKILL after ${delay}s"
    rm -f "$out".tmp-*
done
for attempt in 1 2 3; do
    cp "$SCRATCH/old" "$out"
    "$ONESCOPE_BIN" rewrite "$SCRATCH/big.ospc" "$out" &
    pid=$!
    # Poll for the temporary file: a kill then lands between its creation and the rename.
    for _ in $(seq 1 20000); do
        if compgen -G "$out.tmp-*" >/dev/null; then break; fi
        kill -0 "$pid" 2>/dev/null || break
    done
    if compgen -G "$out.tmp-*" >/dev/null; then mid_write=$((mid_write + 1)); fi
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    check_out "SIGKILL while the temporary exists (attempt $attempt)"
    rm -f "$out".tmp-*
done
echo "after SIGKILL: old content kept $kept_old times, new file complete $got_new times;" \
     "$mid_write kills landed while the temporary file existed"

# A write that completes replaces the old content with exactly the new bytes.
cp "$SCRATCH/old" "$out"
expect_exit 0 "$ONESCOPE_BIN" rewrite "$SCRATCH/big.ospc" "$out"
if cmp -s "$out" "$SCRATCH/big.ospc"; then ok; else bad "completed rewrite differs from the input"; fi

# Normal failures leave OUT as it was and no temporary: a write over the file size limit
# (SIGXFSZ ignored, so write() fails with EFBIG) ...
cp "$SCRATCH/old" "$out"
( ulimit -f 1024; trap '' XFSZ; exec "$ONESCOPE_BIN" rewrite "$SCRATCH/big.ospc" "$out" ) \
    >"$SCRATCH/o" 2>"$SCRATCH/err"
rc=$?
if [ "$rc" -eq 1 ]; then ok; else bad "rewrite past the file size limit: exit $rc, wanted 1"; fi
expect_grep "cannot write" "$SCRATCH/err"
if cmp -s "$out" "$SCRATCH/old"; then ok; else bad "a failed write changed $out"; fi
# ... a rename onto a directory ...
mkdir "$SCRATCH/dir.ospc"
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/big.ospc" "$SCRATCH/dir.ospc"
expect_grep "cannot rename" "$SCRATCH/err"
# ... and invalid input (OUT is never created).
printf 'OSPC\x02\x00' >"$SCRATCH/bad.ospc"
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/bad.ospc" "$SCRATCH/never.ospc"
if [ ! -e "$SCRATCH/never.ospc" ]; then ok; else bad "invalid input created OUT"; fi
left=$(find "$SCRATCH" -name '*.tmp-*' | wc -l)
if [ "$left" -eq 0 ]; then ok; else bad "$left temporary files left after normal failures"; fi

# What OUT names decides how it is written (docs/hardening.md, "### files"). A small cache:
small="$SRC/testdata/test-2d-ghost.ospc"
# /dev/null is written in place and stays a character device.
expect_exit 0 "$ONESCOPE" rewrite "$small" /dev/null
if [ -c /dev/null ]; then ok; else bad "/dev/null is no longer a device"; fi
# A FIFO with a reader gets the bytes and stays a FIFO.
mkfifo "$SCRATCH/fifo"
cat "$SCRATCH/fifo" >"$SCRATCH/from-fifo" &
reader=$!
expect_exit 0 "$ONESCOPE" rewrite "$small" "$SCRATCH/fifo"
wait "$reader"
if [ -p "$SCRATCH/fifo" ]; then ok; else bad "the FIFO was replaced"; fi
if cmp -s "$SCRATCH/from-fifo" "$small"; then ok; else bad "the FIFO's reader got other bytes"; fi
# A symlink: the file it names is replaced, the link stays a link.
cp "$SCRATCH/old" "$SCRATCH/real.ospc"
ln -s real.ospc "$SCRATCH/link.ospc"
expect_exit 0 "$ONESCOPE" rewrite "$small" "$SCRATCH/link.ospc"
if [ -L "$SCRATCH/link.ospc" ]; then ok; else bad "the symlink was replaced"; fi
if cmp -s "$SCRATCH/real.ospc" "$small"; then ok; else bad "the link's file was not written"; fi
# A dangling symlink: its target is created.
ln -s made.ospc "$SCRATCH/dangling.ospc"
expect_exit 0 "$ONESCOPE" rewrite "$small" "$SCRATCH/dangling.ospc"
if [ -L "$SCRATCH/dangling.ospc" ] && cmp -s "$SCRATCH/made.ospc" "$small"; then ok
else bad "the dangling link's target was not created"; fi
# A 0600 file stays 0600.
cp "$SCRATCH/old" "$SCRATCH/private.ospc"
chmod 600 "$SCRATCH/private.ospc"
expect_exit 0 "$ONESCOPE" rewrite "$small" "$SCRATCH/private.ospc"
mode=$(stat -c %a "$SCRATCH/private.ospc")
if [ "$mode" = 600 ]; then ok; else bad "a 0600 file came back $mode"; fi
# A 250-character name (and the longest legal one): the temporary fits NAME_MAX.
for len in 250 255; do
    long="$SCRATCH/$(printf 'l%.0s' $(seq 1 "$len"))"
    expect_exit 0 "$ONESCOPE" rewrite "$small" "$long"
    if cmp -s "$long" "$small"; then ok; else bad "the $len-character name was not written"; fi
    rm -f "$long"
done
left=$(find "$SCRATCH" -name '*.tmp-*' | wc -l)
if [ "$left" -eq 0 ]; then ok; else bad "$left temporary files left by the target kinds"; fi

rm -f "$SCRATCH/big.ospc" "$out"
finish
