# CLI contract for OSTM replays: validate, dump, rewrite, verify, replay.
. "$(dirname "$0")/common.sh"

# A 2D world, 1 body, seed 1, two empty steps: the worked example of docs/test-module.md.
python3 - "$SCRATCH" <<'PY'
import struct, sys
d = sys.argv[1]
rows = [0x7eb9508ff7198b74, 0x0d516a5a4c44d9ab, 0x4fe2a2df1788779b]
def ostm(flags, setup, steps, rows=(), link=b'', snapshot=None):
    b = b'OSTM' + struct.pack('<HHI', 1, flags, len(setup) + len(link)) + setup + link
    b += struct.pack('<I', len(steps))
    if snapshot is not None: b += struct.pack('<I', len(snapshot)) + snapshot
    for r in rows: b += struct.pack('<Q', r)
    for s in steps: b += struct.pack('<H', len(s)) + s
    return b
setup = struct.pack('<BBI', 2, 1, 1)
open(d + '/good.ostm', 'wb').write(ostm(1, setup, [b'', b''], rows))
open(d + '/bad-row.ostm', 'wb').write(ostm(1, setup, [b'', b''], [rows[0], rows[1] ^ 1, rows[2]]))
open(d + '/no-rows.ostm', 'wb').write(ostm(0, setup, [b'', b'']))
open(d + '/flags.ostm', 'wb').write(ostm(8, setup, [b'', b'']))
open(d + '/unknown-op.ostm', 'wb').write(ostm(0, setup, [b'\x09']))
ops = b'\x01\x00' + struct.pack('<iii', 5, 6, 0) + b'\x04' + struct.pack('<i', -3) + b'\x05' + struct.pack('<iii', 1, 2, 0)
open(d + '/linked.ostm', 'wb').write(ostm(4, struct.pack('<BBI', 3, 4, 9), [ops, b''], link=struct.pack('<BBH', 1, 3, 150)))
PY

expect_exit 0 "$ONESCOPE" validate "$SCRATCH/good.ostm" "$SCRATCH/linked.ostm"
expect_grep "good.ostm: valid ostm" "$SCRATCH/out"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/good.ostm" "$SCRATCH/flags.ostm" "$SCRATCH/unknown-op.ostm"
expect_grep "flags.ostm: offset 6: flags: expected only bits 0-2 set, found 0x0008" "$SCRATCH/err"
expect_grep "unknown-op.ostm: offset 24: operation: expected 1 to 5, found 9" "$SCRATCH/err"

expect_exit 0 "$ONESCOPE" dump "$SCRATCH/good.ostm"
expect_grep "body count *1" "$SCRATCH/out"
expect_grep "body 0 *alive 1 still 0 position 6004 8118 0 velocity 103 -37 0" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" dump --json "$SCRATCH/good.ostm"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["step_count"]==2 and d["body_count"]==1 and d["dimensions"]==2 and d["seed"]==1 and d["flags"]==1 and d["link"] is None and d["has_hash_rows"] and d["start_step"]==0 and d["fields"]==[] and d["first_hash"]=="7eb9508ff7198b74"' "$SCRATCH/out"; then ok; else bad "dump --json of good.ostm"; cat "$SCRATCH/out" >&2; fi
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/linked.ostm" --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["link"]; assert l["kind"]=="ContinuedBy" and l["own_key"]=="tm-left" and l["other_key"]=="tm-right" and l["body"]==3 and l["transfer_step"]==150; assert [f["field"] for f in d["fields"]]==["density","occupancy"] and d["fields"][1]["location"]=="triangle"; assert d["operation_counts"]=={"impulse":1,"teleport":0,"remove":0,"gravity":1,"spawn":1}' "$SCRATCH/out"; then ok; else bad "dump --json of linked.ostm"; cat "$SCRATCH/out" >&2; fi
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/linked.ostm"
expect_grep "ContinuedBy, own key tm-left, other key tm-right, body 3, transfer step 150" "$SCRATCH/out"
expect_grep "step 0 *impulse body 0 (5, 6, 0); gravity -3; spawn (1, 2, 0)" "$SCRATCH/out"
expect_grep "field *occupancy per triangle" "$SCRATCH/out"

expect_exit 0 "$ONESCOPE" rewrite "$SCRATCH/linked.ostm" "$SCRATCH/copy.ostm"
if cmp -s "$SCRATCH/linked.ostm" "$SCRATCH/copy.ostm"; then ok; else bad "rewrite changed bytes"; fi
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/unknown-op.ostm" "$SCRATCH/never.ostm"
if [ ! -e "$SCRATCH/never.ostm" ]; then ok; else bad "rewrite created output for invalid input"; fi

expect_exit 0 "$ONESCOPE" verify "$SCRATCH/good.ostm"
expect_grep "good.ostm: ok, 3 hash rows match" "$SCRATCH/out"
expect_exit 1 "$ONESCOPE" verify "$SCRATCH/bad-row.ostm" "$SCRATCH/good.ostm" "$SCRATCH/no-rows.ostm" "$SCRATCH/flags.ostm" "$SCRATCH/missing.ostm"
expect_grep "bad-row.ostm: hash row 1 (the world after step 0): expected 0d516a5a4c44d9aa, found 0d516a5a4c44d9ab" "$SCRATCH/err"
expect_grep "no-rows.ostm: offset 6: flags: expected bit 0 set (hash rows to verify), found 0x0000" "$SCRATCH/err"
expect_grep "flags.ostm: offset 6" "$SCRATCH/err"
expect_grep "good.ostm: ok" "$SCRATCH/out"
expect_grep "4 of 5 files failed: .*bad-row.ostm .*no-rows.ostm .*flags.ostm .*missing.ostm" "$SCRATCH/err"
if grep -q "failed:.*good.ostm" "$SCRATCH/err"; then bad "good.ostm listed as failed"; else ok; fi
expect_exit 0 "$ONESCOPE" -q verify "$SCRATCH/good.ostm"
if [ -s "$SCRATCH/out" ]; then bad "-q verify printed"; else ok; fi
expect_exit 0 "$ONESCOPE" verify - <"$SCRATCH/good.ostm"
expect_exit 2 "$ONESCOPE" verify
expect_exit 2 "$ONESCOPE" verify --frob "$SCRATCH/good.ostm"
expect_exit 0 "$ONESCOPE" verify --help
expect_grep "usage: onescope verify" "$SCRATCH/out"

expect_exit 0 "$ONESCOPE" replay "$SCRATCH/good.ostm"
expect_grep "^step 0 hash 7eb9508ff7198b74$" "$SCRATCH/out"
expect_grep "^step 2 hash 4fe2a2df1788779b$" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" replay "$SCRATCH/bad-row.ostm" --state
expect_grep "^step 1 hash 0d516a5a4c44d9ab MISMATCH expected 0d516a5a4c44d9aa$" "$SCRATCH/out"
expect_grep "body 0 *alive 1 still 0 position 6107 8071 0 velocity 103 -47 0" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" replay --json --state "$SCRATCH/linked.ostm"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rows"]; assert len(r)==3 and r[1]["step"]==1 and len(r[1]["bodies"])==5 and r[1]["gravity"]==-3 and d["mismatches"]==0' "$SCRATCH/out"; then ok; else bad "replay --json"; cat "$SCRATCH/out" >&2; fi
# a module recording (OSTM v2) of the test module, 2 bodies, 2 empty steps: --state shows every
# entity's named values (issue 38 item 10), in text and JSON, and they agree with its position
python3 - "$SCRATCH/m.ostm" <<'PY'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 0, 2) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 2, 7, 0, 0, 0])
open(sys.argv[1], "wb").write(head + struct.pack("<I", 0) * 2)
PY
expect_exit 0 "$ONESCOPE" replay --state "$SCRATCH/m.ostm"
expect_grep "^  entity 1 position \([0-9]*\) \([0-9]*\) \([0-9]*\): alive 1, still_count 0, position.x \1, position.y \2, position.z \3, velocity.x -\?[0-9]*, velocity.y -\?[0-9]*, velocity.z -\?[0-9]*$" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" replay --json --state "$SCRATCH/m.ostm"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = ["alive", "still_count", "position.x", "position.y", "position.z", "velocity.x", "velocity.y", "velocity.z"]
for row in d["rows"]:
    assert len(row["entities"]) == 2, row
    for e in row["entities"]:
        v = e["values"]
        assert list(v) == names, v
        assert [v["position.x"], v["position.y"], v["position.z"]] == e["position"], e
' "$SCRATCH/out" && ok || { bad "replay --json --state values"; cat "$SCRATCH/out" >&2; }
expect_exit 1 "$ONESCOPE" replay "$SCRATCH/unknown-op.ostm"
expect_grep "offset 24" "$SCRATCH/err"
expect_exit 2 "$ONESCOPE" replay
expect_exit 2 "$ONESCOPE" replay a.ostm b.ostm
expect_exit 0 "$ONESCOPE" replay --help

finish
