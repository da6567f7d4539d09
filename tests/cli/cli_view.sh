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
data_ok() { # data_ok PAGE PYTHON-EXPRESSION-ON-d: the page's JSON data block
    "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
t = open(sys.argv[1], encoding="utf-8").read()
o = '<script type="application/json" id="onescope-data">'
s = t.index(o) + len(o)
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
data_ok "$S/d.html" 'd["diff"]["entities"] == [4]' && ok || bad "diff: entity 4 not highlighted"

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

data_ok "$S/ent.html" 'sorted(e["id"] for e in d["runs"][0]["entities"]) == [1, 4]' && ok ||
    bad "--entity kept other entities"

finish
