# CLI contract of onescope diff: same / different / invalid in text and JSON, exit codes.
. "$(dirname "$0")/common.sh"
TD="$SRC/testdata"
S=$SCRATCH

expect_exit 0 "$ONESCOPE" diff "$TD/test-2d-600.ostm" "$TD/test-2d-600.ostm"
expect_grep ": same$" "$S/out"
expect_exit 1 "$ONESCOPE" diff "$TD/test-link-left.ostm" "$TD/test-link-right.ostm"
expect_grep "header seed: a 00000029, b 0000002a" "$S/out"
expect_grep ": different$" "$S/out"
# A replay against its own ghost, with and without the ghost's offset.
expect_exit 0 "$ONESCOPE" diff "$TD/test-2d-600.ostm" "$TD/test-2d-ghost.ospc" --offset 400,0,0
expect_exit 1 "$ONESCOPE" diff "$TD/test-2d-600.ostm" "$TD/test-2d-ghost.ospc"
expect_grep "first past tolerance: step 200, entity 1: distance 0.4 m" "$S/out"
"$ONESCOPE" diff --json "$TD/test-2d-600.ostm" "$TD/test-2d-ghost.ospc" >"$S/j.json"
if python3 - "$S/j.json" <<'PY'; then ok; else bad "replay vs cache JSON"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d['kind'] == 'replay_cache' and d['status'] == 'different', d
assert d['first']['step'] == 200 and d['first']['id'] == 1
assert d['overlap'] == [200, 239] and d['overlap_frames'] == 40
assert all(isinstance(e['max_distance'], float) or isinstance(e['max_distance'], int) for e in d['entities'])
PY
# Two caches: the committed ghost against one without the label: same poses, a header item.
"$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/g.ospc" --from 200 --frames 40 --offset 400,0,0 >/dev/null
expect_exit 0 "$ONESCOPE" diff "$TD/test-2d-ghost.ospc" "$S/g.ospc"
expect_grep "header label" "$S/out"
"$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/h.ospc" --from 210 --frames 30 --offset 401,0,0 >/dev/null
expect_exit 1 "$ONESCOPE" diff "$TD/test-2d-ghost.ospc" "$S/h.ospc" --json
if python3 - "$S/out" <<'PY'; then ok; else bad "cache JSON"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d['kind'] == 'caches' and d['status'] == 'different'
assert d['steps_a'] == [200, 239] and d["steps_b"] == [210, 239] and d['overlap'] == [210, 239]
assert abs(d['first']['distance'] - 0.001) < 1e-9, d['first']
assert d['exact'] is True and d['max_ulps'] > 0
PY
expect_exit 0 "$ONESCOPE" diff "$TD/test-2d-ghost.ospc" "$S/h.ospc" --position-tolerance 0.0015
# Replays: JSON of a divergence made by one changed byte of an operand.
python3 - "$TD/test-2d-600.ostm" "$S/r.ostm" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
open(sys.argv[2], 'wb').write(b)
PY
expect_exit 0 "$ONESCOPE" diff --json -- "$TD/test-2d-600.ostm" "$S/r.ostm"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['status']=='same' and d['diverged'] is False" "$S/out" && ok || bad "same replay JSON"
# Invalid files: exit 1, one line naming the file and offset, "invalid" in JSON.
head -c 30 "$TD/test-2d-ghost.ospc" >"$S/short.ospc"
expect_exit 1 "$ONESCOPE" diff "$TD/test-2d-ghost.ospc" "$S/short.ospc"
expect_grep "short.ospc: offset" "$S/err"
[ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "one error line"
expect_exit 1 "$ONESCOPE" diff --json "$S/short.ospc" "$TD/test-2d-ghost.ospc"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['status']=='invalid' and 'short.ospc' in d['error']" "$S/out" && ok || bad "invalid JSON"
expect_exit 1 "$ONESCOPE" diff "$TD/test-2d-600.ostm" "$S/missing.ostm"
expect_exit 1 "$ONESCOPE" diff "$TD/README.md" "$TD/test-2d-600.ostm"
expect_grep "README.md: offset 0" "$S/err"
# Usage.
expect_exit 2 "$ONESCOPE" diff "$TD/test-2d-600.ostm"
expect_exit 2 "$ONESCOPE" diff a b c
expect_exit 2 "$ONESCOPE" diff - "$TD/test-2d-600.ostm"
expect_exit 2 "$ONESCOPE" diff "$TD/test-2d-ghost.ospc" "$TD/test-2d-600.ostm"
expect_exit 2 "$ONESCOPE" diff "$TD/test-2d-600.ostm" "$TD/test-2d-600.ostm" --max 0
# a --max past 32 bits names the range, not "at least 1"
expect_exit 2 "$ONESCOPE" diff "$TD/test-2d-600.ostm" "$TD/test-2d-600.ostm" --max 4294967296
expect_grep "from 1 to 4294967295" "$SCRATCH/err"
# a module recording against a cache ending at the last host step (2^63 - 1): no step in
# common, said without step arithmetic past int64_t (UBSan in the asan build)
python3 - "$S/m7.ostm" <<'PY'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 1, 3) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", 1)
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<IQ", 0, 2 + i) for i in range(3)))
PY
cat >"$S/top.json" <<'JSONEOF'
{"dims": 3, "mpu": 0.001, "unit": "mm", "start": 9223372036854775805,
 "entities": [{"id": 1}, {"id": 2}],
 "frames": [[[0, 0, 0], [1, 1, 0]], [[0, 1, 0], [1, 2, 0]], [[0, 2, 0], [1, 3, 0]]]}
JSONEOF
python3 "$SRC/tests/cli/view_check.py" ospc "$S/top.json" "$S/top.ospc"
expect_exit 1 "$ONESCOPE" diff "$S/m7.ostm" "$S/top.ospc"
expect_grep "b 9223372036854775805..9223372036854775807; no step in common" "$S/out"
cp "$S/top.ospc" "$S/top2.ospc"
expect_exit 0 "$ONESCOPE" diff "$S/top.ospc" "$S/top2.ospc"
expect_grep "compared 9223372036854775805..9223372036854775807 (3 frames)" "$S/out"
expect_exit 2 "$ONESCOPE" diff "$TD/test-2d-600.ostm" "$TD/test-2d-600.ostm" --angle-tolerance -1
expect_exit 2 "$ONESCOPE" diff "$TD/test-2d-600.ostm" "$TD/test-2d-600.ostm" --bogus
expect_exit 0 "$ONESCOPE" diff --help
finish
