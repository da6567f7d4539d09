# CLI contract for pose caches: validate, dump, rewrite.
. "$(dirname "$0")/common.sh"

# Build a tiny valid cache with printf: 1 entity, 1 frame, 3D.
hdr='OSPC\x01\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00'
hdr="$hdr"'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
texts='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
entity='\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00b'
pose='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x3f'
printf "$hdr$texts$entity$pose" >"$SCRATCH/good.ospc"
printf 'OSPC\x01\x00\x03\x00' >"$SCRATCH/flags.ospc"

expect_exit 0 "$ONESCOPE" validate "$SCRATCH/good.ospc"
expect_grep "valid ospc" "$SCRATCH/out"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/good.ospc" "$SCRATCH/flags.ospc"
expect_grep "flags.ospc: offset 6: flags: expected 0, found 3" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/missing.ospc"
expect_grep "missing.ospc" "$SCRATCH/err"
expect_exit 2 "$ONESCOPE" validate
expect_exit 0 "$ONESCOPE" validate --help

expect_exit 0 "$ONESCOPE" dump "$SCRATCH/good.ospc" --json
expect_grep '"entity_count": 1' "$SCRATCH/out"
expect_grep '"metres_per_unit": 0' "$SCRATCH/out"
expect_grep '"name": "b"' "$SCRATCH/out"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$SCRATCH/out"; then ok; else bad "dump --json is not JSON"; fi
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/good.ospc"
expect_grep "entities *1" "$SCRATCH/out"

expect_exit 0 "$ONESCOPE" rewrite "$SCRATCH/good.ospc" "$SCRATCH/copy.ospc"
if cmp -s "$SCRATCH/good.ospc" "$SCRATCH/copy.ospc"; then ok; else bad "rewrite changed bytes"; fi
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/flags.ospc" "$SCRATCH/never.ospc"
if [ ! -e "$SCRATCH/never.ospc" ] && [ -z "$(ls "$SCRATCH" | grep tmp-)" ]; then ok; else bad "rewrite left a file behind"; fi
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/good.ospc" "$SCRATCH/good.ospc"
expect_exit 0 "$ONESCOPE" rewrite - - <"$SCRATCH/good.ospc"
expect_exit 2 "$ONESCOPE" rewrite "$SCRATCH/good.ospc"
expect_exit 2 "$ONESCOPE" frobnicate

finish
