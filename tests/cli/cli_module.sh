# onescope module check: the test module passes every check over v1 replays and a module
# recording; --json; bad files and usage errors are one line each; a missing subcommand.
. "$(dirname "$0")/common.sh"
TD=$SRC/testdata

for f in test-2d-600.ostm test-link-left.ostm test-field-3d.ostm test-live-attach.ostm; do
    expect_exit 0 "$ONESCOPE" module check --steps 200 "$TD/$f"
    [ "$(grep -c ': passed over ' "$SCRATCH/out")" = 5 ] && ok || bad "$f: $(cat "$SCRATCH/out")"
done
# -q: nothing when everything passed
expect_exit 0 "$ONESCOPE" -q module check --steps 30 --every 1 --horizon 2 "$TD/test-2d-600.ostm"
[ -s "$SCRATCH/out" ] && bad "-q printed: $(cat "$SCRATCH/out")" || ok

expect_exit 0 "$ONESCOPE" module check --json --steps 50 "$TD/test-2d-600.ostm"
python3 -c '
import json, sys; d = json.load(open(sys.argv[1]))
assert d["module"] == "onescope.test" and d["steps"] == 50 and d["failed"] == 0, d
assert [c["check"] for c in d["checks"]] == ["determinism", "snapshot", "restore", "stages", "hash"], d
assert all(c["status"] == "passed" and c["step"] is None for c in d["checks"]), d
' "$SCRATCH/out" && ok || bad "json: $(cat "$SCRATCH/out")"

# a module recording (OSTM v2) of the test module: three empty steps (module check reads the
# setup and inputs, not the rows)
python3 - "$SCRATCH/m.ostm" <<'PY'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 1, 3) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", 1)
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<IQ", 0, 2 + i) for i in range(3)))
PY
expect_exit 0 "$ONESCOPE" module check "$SCRATCH/m.ostm"
[ "$(grep -c 'm.ostm: .*: passed over 3 steps' "$SCRATCH/out")" = 5 ] && ok || bad "v2: $(cat "$SCRATCH/out")"

# dump of a module recording says whether the file has entity rows and keyframes (with K and
# the keyframe count), and how many inputs it did not list: the module describes the first 16
# steps with input; a module not loaded describes none (text and --json alike)
V2=$SRC/tests/fuzz/corpus/recording_parse
python3 - "$V2/valid-3d" "$SCRATCH/unloaded.ostm" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
assert b[13:26] == b"onescope.test"
b[13:26] = b"onescope.tesu"  # a module no build has: the container stays valid
open(sys.argv[2], "wb").write(b)
PY
expect_exit 0 "$ONESCOPE" dump "$V2/keyframes"
expect_grep "^  entity rows      17 (one beside each hash row)$" "$SCRATCH/out"
expect_grep "^  keyframes        4, K = 4 (one every 4 steps)$" "$SCRATCH/out"
expect_grep "^  input            170 bytes in 13 steps$" "$SCRATCH/out"
[ "$(grep -c '^  step ' "$SCRATCH/out")" = 13 ] && ok || bad "keyframes: $(cat "$SCRATCH/out")"
grep -q "not listed" "$SCRATCH/out" && bad "all 13 listed, yet: $(cat "$SCRATCH/out")" || ok
expect_exit 0 "$ONESCOPE" dump "$V2/valid-3d"
expect_grep "^  entity rows      none$" "$SCRATCH/out"
expect_grep "^  keyframes        none$" "$SCRATCH/out"
[ "$(grep -c '^  step ' "$SCRATCH/out")" = 16 ] && ok || bad "valid-3d: $(cat "$SCRATCH/out")"
expect_grep "^  \.\.\. 4 more steps with input, not listed$" "$SCRATCH/out"
cp "$SCRATCH/out" "$SCRATCH/valid-3d.txt"
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/unloaded.ostm"
expect_grep "^  module           onescope.tesu 1 (not loaded)$" "$SCRATCH/out"
expect_grep "^  inputs           20 not listed (the module is not loaded)$" "$SCRATCH/out"
grep -q '^  step ' "$SCRATCH/out" && bad "unloaded listed steps: $(cat "$SCRATCH/out")" || ok
for f in "$V2/keyframes" "$V2/valid-3d" "$SCRATCH/unloaded.ostm"; do
    expect_exit 0 "$ONESCOPE" dump --json "$f"
    cp "$SCRATCH/out" "$SCRATCH/$(basename "$f").json"
done
if python3 - "$SCRATCH" <<'PY'; then ok; else bad "dump --json of module recordings"; fi
import json, re, sys
S = sys.argv[1]
k, v, u = (json.load(open(f"{S}/{n}.json")) for n in ("keyframes", "valid-3d", "unloaded.ostm"))
assert (k["has_entity_rows"], k["has_keyframes"], k["keyframe_every"], k["keyframe_count"]) == (True, True, 4, 4), k
assert (v["has_entity_rows"], v["has_keyframes"], v["keyframe_every"], v["keyframe_count"]) == (False, False, 0, 0), v
assert (len(k["inputs"]), k["inputs_not_listed"]) == (13, 0), k
assert (len(v["inputs"]), v["inputs_not_listed"], v["steps_with_input"]) == (16, 4, 20), v
assert (u["module_loaded"], u["inputs"], u["inputs_not_listed"]) == (False, [], 20), u
# the same steps and texts as the text dump
text = [tuple(re.match(r"  step (\d+) +(.*)$", l).groups()) for l in open(f"{S}/valid-3d.txt") if l.startswith("  step ")]
assert [(str(i["step"]), i["text"]) for i in v["inputs"]] == text, (v["inputs"], text)
assert v["inputs"][0] == {"step": 0, "text": "impulse body 0 (50, -20, 7)"}, v["inputs"][0]
PY

# bad files: one line each, naming the file, exit 1
printf 'garbage' >"$SCRATCH/g.ostm"
head -c 40 "$TD/test-2d-600.ostm" >"$SCRATCH/cut.ostm"
for f in g.ostm cut.ostm missing.ostm; do
    expect_exit 1 "$ONESCOPE" module check "$SCRATCH/$f"
    [ "$(wc -l <"$SCRATCH/err")" = 1 ] && grep -q "$f" "$SCRATCH/err" && ok || bad "$f: $(cat "$SCRATCH/err")"
done
expect_exit 1 "$ONESCOPE" module check "$SCRATCH/g.ostm"
expect_grep "g.ostm: offset 0: magic: expected \"OSTM\"" "$SCRATCH/err"

# usage: exit 2, one line
for args in "" "check" "nope x.ostm" "check --steps 0 x.ostm" "check --every 0 x.ostm" \
    "check --horizon x x.ostm" "check a.ostm b.ostm"; do
    expect_exit 2 "$ONESCOPE" module $args
    [ "$(wc -l <"$SCRATCH/err")" = 1 ] && ok || bad "module $args: $(cat "$SCRATCH/err")"
done
expect_exit 0 "$ONESCOPE" module check --help
expect_grep "usage: onescope module check RECORDING.ostm" "$SCRATCH/out"

finish
