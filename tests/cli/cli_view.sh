# CLI contract for view: pages loaded in one headless Chromium (tests/cli/view_check.py, the
# DevTools protocol on a pipe): no console error, body i's colour at the pixel its position at
# step k maps to, the legend, the diff's step, hostile names escaped, the decimation said,
# --entity, a z-up cache's top view, and the usage errors.
. "$(dirname "$0")/common.sh"
T="$SRC/testdata"
PY=/usr/bin/python3
CHECK="$SRC/tests/cli/view_check.py"
CHROMIUM=$(command -v chromium || true)
if [ -z "$CHROMIUM" ]; then
    echo "SKIPPED: chromium is not installed (scripts/deps.sh installs Debian's chromium)"
    exit 77
fi
# ospc SPEC.json OUT: a cache written by hand (view_check.py)
ospc() { "$PY" "$CHECK" ospc "$1" "$2" || bad "could not write $2"; }
check() { if "$PY" "$CHECK" "$@" >>"$SCRATCH/checks" 2>&1; then ok; else bad "view_check $*"; tail -5 "$SCRATCH/checks" >&2; fi; }
# view with a time limit: a page whose cost followed the step numbers never finished
tview() { expect_exit "$1" timeout 60 "$ONESCOPE" view "${@:2}"; }
data_ok() { # data_ok PAGE PYTHON-EXPRESSION-ON-d: the page's JSON data block (its size: n)
    "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
t = open(sys.argv[1], encoding="utf-8").read()
o = '<script type="application/json" id="onescope-data">'
s = t.index(o) + len(o)
n = len(t[s:t.index("</script>", s)].encode("utf-8"))
d = json.loads(t[s:t.index("</script>", s)])
sys.exit(0 if eval(sys.argv[2]) else 1)
PYEOF
}
S=$SCRATCH
jobs=()

# ---- usage errors: one line each, exit 2, nothing written ----
expect_exit 2 "$ONESCOPE" view "$T/test-2d-600.ostm"
expect_grep "needs -o OUT.html" "$S/err"
expect_exit 2 "$ONESCOPE" view "$T/test-2d-600.ostm" -o "$S/x.png"
expect_exit 2 "$ONESCOPE" view "$T/test-2d-600.ostm" --diff -o "$S/x.html"
expect_exit 2 "$ONESCOPE" view "$T/test-2d-600.ostm" --entity 3,nosuch -o "$S/x.html"
expect_grep "no input has an entity 'nosuch'" "$S/err"
[ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "--entity error is not one line"
[ ! -e "$S/x.html" ] && ok || bad "a refused view wrote its output"
expect_exit 1 "$ONESCOPE" view "$T/README.md" -o "$S/x.html"
expect_grep "README.md: offset 0: view shows" "$S/err"

# ---- the pages ----
# 2D: a replay and its ghost overlaid
expect_exit 0 "$ONESCOPE" view "$T/test-2d-600.ostm" "$T/test-2d-ghost.ospc" -o "$S/r2d.html"
jobs+=("$S/r2d.html" "step=220" "$S/r2d" "$S/r2d.html" "step=37" "$S/r2d37")
"$ONESCOPE" -q ghost "$T/test-2d-600.ostm" "$S/all.ospc" --from 0 --frames 601
"$ONESCOPE" dump "$S/all.ospc" --poses --csv >"$S/all.csv"
"$ONESCOPE" dump "$T/test-2d-ghost.ospc" --poses --csv >"$S/ghost.csv"

# 3D with fields: top and side views, and the field drawn
expect_exit 0 "$ONESCOPE" view "$T/test-field-3d.ostm" -o "$S/f3.html"
steps=$("$ONESCOPE" dump "$T/test-field-3d.ostm" --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["step_count"])')
"$ONESCOPE" -q ghost "$T/test-field-3d.ostm" "$S/f3.ospc" --from 0 --frames $((steps + 1))
"$ONESCOPE" dump "$S/f3.ospc" --poses --csv >"$S/f3.csv"
jobs+=("$S/f3.html" "step=10&field=" "$S/f3" "$S/f3.html" "step=10&view=side&field=" "$S/f3side")
jobs+=("$S/f3.html" "step=10&field=0" "$S/f3field")

# a long run: decimated under the budget, and the page says so
expect_exit 0 "$ONESCOPE" view "$T/test-10000.ostm" -o "$S/big.html"
expect_grep "decimated: every" "$S/err"
jobs+=("$S/big.html" "" "$S/big")

# diff: the replay's ghost against a copy whose body 3 (id 4) moves 50 mm from step 300 on
"$PY" - "$S/all.csv" "$S/moved.json" <<'PYEOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
ids = list(dict.fromkeys(int(r["entity"]) for r in rows))
names = {int(r["entity"]): r["name"] for r in rows}
frames = {}
for r in rows:
    f = frames.setdefault(int(r["step"]), {})
    if r["present"] == "1":
        p = [float(r[k]) for k in "xyz"]
        if int(r["entity"]) == 4 and int(r["step"]) >= 300:
            p[0] += 50
        f[int(r["entity"])] = p
json.dump({"dims": 2, "mpu": 0.001, "unit": "mm", "start": min(frames),
           "entities": [{"id": i, "name": names[i]} for i in ids],
           "frames": [[frames[s].get(i) for i in ids] for s in sorted(frames)]},
          open(sys.argv[2], "w"))
PYEOF
ospc "$S/moved.json" "$S/moved.ospc"
"$ONESCOPE" diff "$S/all.ospc" "$S/moved.ospc" --json >"$S/d.json"
want=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["first"]["step"])' "$S/d.json")
expect_exit 0 "$ONESCOPE" view "$S/all.ospc" "$S/moved.ospc" --diff -o "$S/d.html"
jobs+=("$S/d.html" "step=300" "$S/d")

# a z-up cache (label up=z, as convert records it)
cat >"$S/zup.json" <<'JSONEOF'
{"dims": 3, "mpu": 1, "unit": "m", "label": "up=z",
 "entities": [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}],
 "frames": [[[0, 0, 0], [1, 3, 0.5], [2, 0, 1], [3, 3, 1.5]],
            [[0, 0, 0], [1, 3, 0.5], [2, 0, 1], [3, 3, 1.5]]]}
JSONEOF
ospc "$S/zup.json" "$S/zup.ospc"
expect_exit 0 "$ONESCOPE" view "$S/zup.ospc" -o "$S/zup.html"
"$ONESCOPE" dump "$S/zup.ospc" --poses --csv >"$S/zup.csv"
jobs+=("$S/zup.html" "step=1" "$S/zup")

# numbers as the cache stores them: floats that %.7g would round (12345.678 vs 12345.679, a
# 2^24 + 1 that is stored as 2^24, the smallest normal and the largest float), digit for digit
cat >"$S/digits.json" <<'JSONEOF'
{"dims": 3, "mpu": 1, "unit": "m",
 "entities": [{"id": 7}, {"id": 9}],
 "frames": [[[12345.678, 0.1, -3.0000002], [1e-7, 2.5, 16777217]],
            [[12345.679, 0.2, 1.1754944e-38], [3.4028235e38, -0.0, 7]]]}
JSONEOF
ospc "$S/digits.json" "$S/digits.ospc"
expect_exit 0 "$ONESCOPE" view "$S/digits.ospc" -o "$S/digits.html"
check exact "$S/digits.html" "$S/digits.json"

# hostile names: a file name with quotes, <, &, a newline and a byte that is not UTF-8, and
# entity names that try to close the script and inject an element
hostile=$(printf 'h"<b>&\n\377.ospc')
cat >"$S/hostile.json" <<'JSONEOF'
{"dims": 2, "mpu": 1, "unit": "m",
 "entities": [{"id": 1, "name": "</script><img id=\"pwned\" src=x onerror=\"document.title='pwned'\">"},
              {"id": 2, "name": "a \"quoted\" & <ampersand>"},
              {"id": 3, "name": "two\nlines \u2028 <!-- x"}],
 "frames": [[[0, 0, 0], [2, 1, 0], [4, 2, 0]], [[0.1, 0, 0], [2.1, 1, 0], [4.1, 2, 0]],
            [[0.2, 0, 0], [2.2, 1, 0], [4.2, 2, 0]]]}
JSONEOF
ospc "$S/hostile.json" "$S/$hostile"
expect_exit 0 "$ONESCOPE" view "$S/$hostile" -o "$S/hostile.html"
jobs+=("$S/hostile.html" "" "$S/hostile")

# --entity: only the named bodies reach the page
expect_exit 0 "$ONESCOPE" view "$T/test-2d-600.ostm" --entity "1,body 3" -o "$S/ent.html"
jobs+=("$S/ent.html" "step=5" "$S/ent")

# module recordings (OSTM v2) of the test module, three empty steps; seeds 7 and 8 part at row 0
for seed in 7 8; do
    "$PY" - "$S/m$seed.ostm" "$seed" <<'PYEOF'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 1, 3) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 4, int(sys.argv[2]), 0, 0, 0]) + struct.pack("<Q", 1)
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<IQ", 0, 2 + i) for i in range(3)))
PYEOF
done
"$ONESCOPE" diff "$S/m7.ostm" "$S/m8.ostm" --json >"$S/md.json"
mwant=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["first"]["row"])' "$S/md.json")
expect_exit 0 "$ONESCOPE" view "$S/m7.ostm" "$S/m8.ostm" --diff -o "$S/md.html"
jobs+=("$S/md.html" "step=1" "$S/md")

# two replays (the link pair: seeds and roles differ, so they part at the start): the page
# marks the first frame that differs, diff's host_step_a + 1 (the start when at_start)
"$ONESCOPE" diff "$T/test-link-left.ostm" "$T/test-link-right.ostm" --json >"$S/rd.json"
rwant=$("$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["host_step_a"] + (0 if d["at_start"] else 1))' "$S/rd.json")
expect_exit 0 "$ONESCOPE" view "$T/test-link-left.ostm" "$T/test-link-right.ostm" --diff -o "$S/rd.html"
jobs+=("$S/rd.html" "" "$S/rd")

# ---- step numbers and ids near the top of their range, and the budget as a bound ----
# a cache of 3 frames ending at the last host step (2^63 - 1), its ids 2^53 and 2^53 + 1 (one
# JavaScript number): every step and id stays exact, as strings, and the page opens at the
# step its URL names, digit for digit
cat >"$S/top.json" <<'JSONEOF'
{"dims": 2, "mpu": 1, "unit": "m", "start": 9223372036854775805,
 "entities": [{"id": 9007199254740992}, {"id": 9007199254740993}, {"id": 18446744073709551615}],
 "frames": [[[0, 0, 0], [4, 1, 0], [8, 0, 0]], [[0, 1, 0], [4, 2, 0], [8, 1, 0]],
            [[0, 2, 0], [4, 3, 0], [8, 2, 0]]]}
JSONEOF
ospc "$S/top.json" "$S/top.ospc"
tview 0 "$S/top.ospc" -o "$S/top.html"
data_ok "$S/top.html" 'd["runs"][0]["steps"] == ["9223372036854775805", "9223372036854775806", "9223372036854775807"] and [e["id"] for e in d["runs"][0]["entities"]] == ["9007199254740992", "9007199254740993", "18446744073709551615"] and d["last"] == "9223372036854775807"' &&
    ok || bad "top.html: steps or ids not exact"
jobs+=("$S/top.html" "step=9223372036854775806" "$S/top")
# the same cache against a copy whose entity 2^53 + 1 moved: the diff names that id alone
cp "$S/top.ospc" "$S/top-b.ospc"
"$PY" - "$S/top.json" "$S/top-b.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["frames"][2][1][0] += 1
json.dump(d, open(sys.argv[2], "w"))
PYEOF
ospc "$S/top-b.json" "$S/top-b.ospc"
tview 0 "$S/top.ospc" "$S/top-b.ospc" --diff -o "$S/topd.html"
data_ok "$S/topd.html" 'd["diff"]["entities"] == ["9007199254740993"] and d["diff"]["step"] == "9223372036854775807"' &&
    ok || bad "topd.html: the diff's id or step not exact"
jobs+=("$S/topd.html" "" "$S/topd")

# two 3-frame caches 10^12 steps apart: six steps kept, at once (the span is never walked)
for at in 0 1000000000000; do
    cat >"$S/far$at.json" <<JSONEOF
{"dims": 2, "mpu": 1, "unit": "m", "start": $at, "entities": [{"id": 1}, {"id": 2}, {"id": 3}],
 "frames": [[[0, 0, 0], [2, 0, 0], [4, 0, 0]], [[0, 1, 0], [2, 1, 0], [4, 1, 0]],
            [[0, 2, 0], [2, 2, 0], [4, 2, 0]]]}
JSONEOF
    ospc "$S/far$at.json" "$S/far$at.ospc"
done
tview 0 "$S/far0.ospc" "$S/far1000000000000.ospc" -o "$S/far.html"
data_ok "$S/far.html" 'd["total_steps"] == 6 and d["kept_steps"] == 6 and not d["decimated"] and d["runs"][1]["steps"][0] == "1000000000000"' &&
    ok || bad "far.html: not the six steps"
# ... and with a budget that decimates them: still at once, every input's first and last kept
cat >"$S/farbig.json" <<'JSONEOF'
{"dims": 2, "mpu": 1, "unit": "m", "start": 4611686018427387904, "entities": [{"id": 1}],
 "frames": [[[0, 0, 0]], [[0, 1, 0]]]}
JSONEOF
ospc "$S/farbig.json" "$S/farbig.ospc"
tview 0 "$T/test-2d-600.ostm" "$S/farbig.ospc" --max-bytes 10000 -o "$S/farbig.html"
data_ok "$S/farbig.html" 'n <= 10000 and d["decimated"] and d["runs"][0]["steps"][0] == "0" and d["runs"][0]["steps"][-1] == "600" and d["runs"][1]["steps"] == ["4611686018427387904", "4611686018427387905"]' &&
    ok || bad "farbig.html: over the budget, or an input's first or last step dropped"

# --max-bytes is a bound on the data, charged as it is written, whatever the estimate said:
# (a) numbers longer than the estimate's 10 bytes (floats of 9 significant digits)
"$PY" - "$S/long.json" <<'PYEOF'
import json, sys
ents = [{"id": i + 1} for i in range(40)]
frames = [[[-1.2345678e-20 * (f + 1), 3.3333333e+21 + e, -7.7777777e-9] for e in range(40)]
          for f in range(400)]
json.dump({"dims": 3, "mpu": 1, "unit": "m", "entities": ents, "frames": frames}, open(sys.argv[1], "w"))
PYEOF
ospc "$S/long.json" "$S/long.ospc"
tview 0 "$S/long.ospc" --max-bytes 100000 -o "$S/long.html"
data_ok "$S/long.html" 'n <= 100000 and d["decimated"]' && ok || bad "long.html: data over --max-bytes 100000"
# (b) a module recording whose entities are born as it runs (the test module, one body at
# the start, one spawned per step up to 64): the estimate sees one body
"$PY" - "$S/born.ostm" "$S/born-b.ostm" <<'PYEOF'
import struct, sys
steps = 3000
head = b"OSTM" + struct.pack("<HHI", 2, 1, steps) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([2, 1, 5, 0, 0, 0]) + struct.pack("<Q", 1)
for path, kick in ((sys.argv[1], False), (sys.argv[2], True)):
    rec = b""
    for i in range(steps):
        op = b"\x05" + struct.pack("<iii", 100 * (i % 90), 50 * (i % 150), 0) if i < 70 else b""
        if kick and i == 1500:  # born-b: an impulse on body 3 in step 1500
            op = b"\x01\x03" + struct.pack("<iii", 7, 0, 0)
        rec += struct.pack("<I", len(op)) + op + struct.pack("<Q", 2 + i)
    open(path, "wb").write(head + rec)
PYEOF
tview 0 "$S/born.ostm" --max-bytes 100000 -o "$S/born.html"
data_ok "$S/born.html" 'n <= 100000 and d["decimated"] and max(len(f) for f in d["runs"][0]["frames"]) > 60' &&
    ok || bad "born.html: data over --max-bytes 100000"
check frames "$S/born.html"
# ... and a copy kicked in step 1500: a decimated diff of two module recordings keeps the row
# the diff marks in both runs, under the default budget and a tight one
"$ONESCOPE" diff "$S/born.ostm" "$S/born-b.ostm" --json >"$S/born.json"
bwant=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["first"]["row"])' "$S/born.json")
[ "$bwant" = 1501 ] && ok || bad "born diff: row $bwant, not 1501"
for budget in 4000000 20000; do
    tview 0 "$S/born.ostm" "$S/born-b.ostm" --diff --max-bytes $budget -o "$S/bornd-$budget.html"
    data_ok "$S/bornd-$budget.html" "n <= $budget and d['decimated'] and d['diff']['step'] == '$bwant' and all('$bwant' in r['steps'] for r in d['runs'])" &&
        ok || bad "bornd-$budget.html: the divergence row $bwant not kept, or over the budget"
done
jobs+=("$S/bornd-20000.html" "step=$bwant" "$S/bornd")
# (c) diff mode: the dense steps around the divergence are charged too (frames of 1500
# entities, the second cache parting at step 333 of 600)
"$PY" - "$S/wide-a.json" "$S/wide-b.json" <<'PYEOF'
import json, sys
ents = [{"id": i + 1} for i in range(1500)]
for k, path in enumerate(sys.argv[1:]):
    frames = [[[e * 0.5, f * 0.25 + (1.0 if k and f >= 333 and e == 7 else 0.0), 0] for e in range(1500)]
              for f in range(600)]
    json.dump({"dims": 2, "mpu": 1, "unit": "m", "entities": ents, "frames": frames}, open(path, "w"))
PYEOF
ospc "$S/wide-a.json" "$S/wide-a.ospc"
ospc "$S/wide-b.json" "$S/wide-b.ospc"
tview 0 "$S/wide-a.ospc" "$S/wide-b.ospc" --diff --max-bytes 400000 -o "$S/wide.html"
# the divergence is never decimated away (nor, in a wide page, the budget passed)
data_ok "$S/wide.html" 'n <= 400000 and d["decimated"] and d["diff"]["step"] == "333" and all("333" in r["steps"] for r in d["runs"])' &&
    ok || bad "wide.html: over the budget or the divergence step dropped"
jobs+=("$S/wide.html" "step=333" "$S/wide")
# a decimated diff of two long replays: the divergence step is kept in both runs and marked
"$ONESCOPE" -q ghost "$T/test-10000.ostm" "$S/g10k.ospc" --from 0 --frames 6001
"$PY" - "$S/g10k.ospc" "$S/g10k-b.ospc" <<'PYEOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
n_ent, n_fr = struct.unpack_from("<II", b, 12)
# the poses follow the entity table: find it from the end (7 floats of 4 bytes per pose)
poses = len(b) - n_ent * n_fr * 28
f, e = 4321, 0
while e < n_ent:  # the first entity present at frame f
    off = poses + (f * n_ent + e) * 28
    if struct.unpack_from("<f", b, off)[0] == struct.unpack_from("<f", b, off)[0]:
        break
    e += 1
struct.pack_into("<f", b, off, struct.unpack_from("<f", b, off)[0] + 500)
open(sys.argv[2], "wb").write(b)
PYEOF
"$ONESCOPE" diff "$S/g10k.ospc" "$S/g10k-b.ospc" --json >"$S/g10k.json"
gwant=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["first"]["step"])' "$S/g10k.json")
for budget in 1000000 10000; do
    tview 0 "$S/g10k.ospc" "$S/g10k-b.ospc" --diff --max-bytes $budget -o "$S/g10k-$budget.html"
    data_ok "$S/g10k-$budget.html" "n <= $budget and d['decimated'] and d['diff']['step'] == '$gwant' and all('$gwant' in r['steps'] for r in d['runs'])" &&
        ok || bad "g10k-$budget.html: the divergence step $gwant not kept, or over the budget"
done
jobs+=("$S/g10k-10000.html" "" "$S/g10k")
# a budget so tight that no step near the divergence fits beside it: the marks alone (each
# input's first and last step, and the divergence, step 1234 of 2000, on no grid)
"$PY" - "$S/tight-a.json" "$S/tight-b.json" <<'PYEOF'
import json, sys
ents = [{"id": i + 1} for i in range(60)]
for k, path in enumerate(sys.argv[1:]):
    frames = [[[5.5, 5.5, 0] if k and f >= 1234 and e == 30 else
               [1000 + e * 1.1111111 + f * 0.0123, 2000.123 + e * 3.3333, 0] for e in range(60)]
              for f in range(2000)]
    json.dump({"dims": 2, "mpu": 1, "unit": "m", "entities": ents, "frames": frames}, open(path, "w"))
PYEOF
ospc "$S/tight-a.json" "$S/tight-a.ospc"
ospc "$S/tight-b.json" "$S/tight-b.ospc"
tview 0 "$S/tight-a.ospc" "$S/tight-b.ospc" --diff --max-bytes 15000 -o "$S/tight.html"
data_ok "$S/tight.html" 'n <= 15000 and d["dense"] is None and d["every"] is None and all(r["steps"] == ["0", "1234", "1999"] for r in d["runs"]) and d["diff"]["step"] == "1234"' &&
    ok || bad "tight.html: not the marks alone, or the divergence dropped"
jobs+=("$S/tight.html" "step=1234" "$S/tight")
tview 1 "$S/tight-a.ospc" "$S/tight-b.ospc" --diff --max-bytes 12000 -o "$S/tight.html"
expect_grep "tight.html: --max-bytes 12000: expected the page's data to fit, found" "$S/err"

# a budget nothing fits: one line naming OUT, exit 1, nothing written
"$PY" - "$S/huge.json" <<'PYEOF'
import json, sys
json.dump({"dims": 2, "mpu": 1, "unit": "m", "entities": [{"id": i + 1, "name": "n" * 40} for i in range(400)],
           "frames": [[[e, 0, 0] for e in range(400)]] * 2}, open(sys.argv[1], "w"))
PYEOF
ospc "$S/huge.json" "$S/huge.ospc"
tview 1 "$S/huge.ospc" --max-bytes 10000 -o "$S/huge.html"
expect_grep "huge.html: --max-bytes 10000: expected the page's data to fit" "$S/err"
[ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "the budget's refusal is not one line"
[ ! -e "$S/huge.html" ] && ok || bad "a refused view wrote its output"

# a replay whose host steps pass 2^63 - 1 (its start snapshot's step moved up): one line, the
# file's name escaped (a newline in it), exit 1
"$PY" - "$T/test-live-attach.ostm" "$S/$(printf 'hi\nstep.ostm')" <<'PYEOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.index(struct.pack("<Q", 150))  # the start snapshot's host step (dump: host step 150)
b[i:i + 8] = struct.pack("<Q", 2**63 - 100)
open(sys.argv[2], "wb").write(b)
PYEOF
tview 1 "$S/$(printf 'hi\nstep.ostm')" -o "$S/histep.html"
expect_grep 'hi\\nstep.ostm: start step: expected host steps up to 9223372036854775807, found 9223372036854775708 + 250 steps' "$S/err"
[ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "a replay past 2^63 - 1: not one line"

# a malformed URL fragment: the page still opens, names what it ignored
expect_exit 0 "$ONESCOPE" view "$T/test-2d-600.ostm" -o "$S/frag.html"
jobs+=("$S/frag.html" "step=%E0" "$S/frag1" "$S/frag.html" "%zz=1&step=12x&trail=%&view=side" "$S/frag2")
jobs+=("$S/frag.html" "step=00042&trail=3" "$S/frag3")

# ---- one browser loads them all ----
check load "$CHROMIUM" "${jobs[@]}"

# body colours where their positions fall, at two steps, over the replay and its ghost
check legend "$S/r2d.dom" test-2d-600.ostm test-2d-ghost.ospc
check pixels "$S/r2d.dom" "$S/r2d.png" 220 "$S/all.csv@0.001" "$S/ghost.csv@0.001"
check pixels "$S/r2d37.dom" "$S/r2d37.png" 37 "$S/all.csv@0.001"
check pixels "$S/f3.dom" "$S/f3.png" 10 "$S/f3.csv@0.001"
check pixels "$S/f3side.dom" "$S/f3side.png" 10 "$S/f3.csv@0.001"
data_ok "$S/f3.html" 'len(d["runs"][0]["field"]) == 2' && ok || bad "no fields in the 3D page"

size=$(stat -c %s "$S/big.html")
[ "$size" -lt 6000000 ] && ok || bad "test-10000 page is $size bytes"
data_ok "$S/big.html" 'd["decimated"] and d["every"] > 1' && ok || bad "test-10000 not decimated"
grep -q 'id="decimated"' "$S/big.dom" && ok || bad "the page does not say it decimated"

[ "$want" = 300 ] && ok || bad "diff reports step $want, not 300"
check diff "$S/d.dom" "$want"
check legend "$S/d.dom" all.ospc moved.ospc
data_ok "$S/d.html" 'd["diff"]["entities"] == ["4"]' && ok || bad "diff: entity 4 not highlighted"

check diff "$S/md.dom" "$mwant"
check diff "$S/rd.dom" "$rwant"
data_ok "$S/md.html" 'd["runs"][0]["columns"][3:5] == ["alive", "still_count"] and d["diff"]["names"]' &&
    ok || bad "module recording: its named values or the diff's value missing"

check pixels "$S/zup.dom" "$S/zup.png" 1 "$S/zup.csv@1"
"$PY" - "$S/zup.dom" <<'PYEOF' && ok || bad "z-up top view is not x-y"
import html, json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = json.loads(html.unescape(re.search(r'data-mapping="([^"]*)"', t).group(1)))
r = [round(v, 6) for v in m["R"]]
u = [round(v, 6) for v in m["U"]]
sys.exit(0 if r == [1, 0, 0] and u == [0, 1, 0] and m["view"] == "top" else 1)
PYEOF

# the names as the page must hold them: the byte that is not UTF-8 as U+FFFD
cat >"$S/names.json" <<'JSONEOF'
["h\"<b>&\n\ufffd.ospc",
 "</script><img id=\"pwned\" src=x onerror=\"document.title='pwned'\">",
 "a \"quoted\" & <ampersand>", "two\nlines \u2028 <!-- x"]
JSONEOF
check escape "$S/hostile.html" "$S/hostile.dom" "$S/names.json"

data_ok "$S/ent.html" 'sorted(e["id"] for e in d["runs"][0]["entities"]) == ["1", "4"]' && ok ||
    bad "--entity kept other entities"

# the top of the range: the step the URL names, every id apart
check at "$S/top.dom" 9223372036854775806
check ids "$S/top.dom" 9007199254740992 9007199254740993 18446744073709551615
check diff "$S/topd.dom" 9223372036854775807
# the divergence marked in the decimated pages, and shown when the URL names it
check diff "$S/wide.dom" 333
check at "$S/wide.dom" 333
check diff "$S/g10k.dom" "$gwant"
check diff "$S/bornd.dom" "$bwant"
check at "$S/bornd.dom" "$bwant"
check diff "$S/tight.dom" 1234
check at "$S/tight.dom" 1234
# a malformed fragment is named and ignored; a good one after leading zeros still works
for k in 1 2; do
    grep -q 'id="fragment"' "$S/frag$k.dom" && ok || bad "frag$k: the ignored fragment is not named"
done
check at "$S/frag1.dom" 0
check at "$S/frag3.dom" 42

finish
