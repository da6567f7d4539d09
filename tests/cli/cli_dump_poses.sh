# CLI contract for dump --poses: pose values as a table, CSV or JSON, with --frames and --entity.
. "$(dirname "$0")/common.sh"
G="$SRC/testdata/test-2d-ghost.ospc"

# the ghost is the replay 400 mm to the right: entity 1 at frame 0 (step 200) is body 0 at row 200
"$ONESCOPE" replay "$SRC/testdata/test-2d-600.ostm" --json --state >"$SCRATCH/state.json"
want=$(/usr/bin/python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["rows"][200]["bodies"][0]["position"]; print("%d,%d,%d" % (b[0]+400, b[1], b[2]))' "$SCRATCH/state.json")
expect_exit 0 "$ONESCOPE" dump "$G" --poses --csv --frames 0:0 --entity 1
[ "$(sed -n 2p "$SCRATCH/out")" = "0,200,1,\"body 0\",1,$want,0,0,0,1" ] && ok || bad "csv row: $(sed -n 2p "$SCRATCH/out"), wanted x,y,z $want"
[ "$(wc -l <"$SCRATCH/out")" -eq 2 ] && ok || bad "one frame, one entity: $(wc -l <"$SCRATCH/out") lines"

# every pose: 40 frames x 22 entities, 823 present (testdata/README.md)
expect_exit 0 "$ONESCOPE" dump "$G" --poses --csv
[ "$(tail -n +2 "$SCRATCH/out" | wc -l)" -eq 880 ] && ok || bad "880 rows"
[ "$(tail -n +2 "$SCRATCH/out" | awk -F, '$5 == 1' | wc -l)" -eq 823 ] && ok || bad "823 present"
# absent poses have empty fields
tail -n +2 "$SCRATCH/out" | awk -F, '$5 == 0 && $6 != ""' | grep -q . && bad "absent with a value" || ok

# JSON parses and agrees with the CSV
expect_exit 0 "$ONESCOPE" dump "$G" --poses --json --frames 10:12
/usr/bin/python3 - "$SCRATCH/out" <<'PY' && ok || bad "json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metres_per_unit"] == 0.001
assert len(d["poses"]) == 3 * 22, len(d["poses"])
assert {p["frame"] for p in d["poses"]} == {10, 11, 12}
assert all(("position" in p) == p["present"] for p in d["poses"])
assert all(p["step"] == 200 + p["frame"] for p in d["poses"])
PY
# the table names its unit and prints absent poses as absent
expect_exit 0 "$ONESCOPE" dump "$G" --poses --frames 39:
expect_grep "metres per unit 0.001" "$SCRATCH/out"
[ "$(tail -n +2 "$SCRATCH/out" | wc -l)" -eq 22 ] && ok || bad "frame 39: 22 rows"
# the plain dump is unchanged
expect_exit 0 "$ONESCOPE" dump "$G"
expect_grep "OSPC v1 pose cache" "$SCRATCH/out"

one_line() { if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ]; then ok; else bad "not one line:"; cat "$SCRATCH/err" >&2; fi; }
for bad_args in "--frames 5:2" "--frames 5" "--frames a:b" "--frames" "--entity 0" "--entity x" \
    "--entity" "--csv --json" "--wide"; do
    # shellcheck disable=SC2086
    expect_exit 2 "$ONESCOPE" dump "$G" --poses $bad_args
    one_line
done
expect_exit 1 "$ONESCOPE" dump "$G" --poses --entity 99
expect_grep "test-2d-ghost.ospc: --entity: none of its 22 entities has id 99" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" dump "$G" --poses --frames 40:50
expect_grep "frame 40 is past its last frame 39" "$SCRATCH/err"
# B given and past the end is an error too (0.3.0 cut it to the last frame silently); B left
# open runs to the last frame
expect_exit 1 "$ONESCOPE" dump "$G" --poses --frames 39:1000
expect_grep "frame 1000 is past its last frame 39" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" dump "$G" --poses --frames 0:40
expect_exit 0 "$ONESCOPE" dump "$G" --poses --csv --frames 39:39
expect_exit 1 "$ONESCOPE" dump "$SRC/testdata/test-2d-600.ostm" --poses
one_line
head -c 300 "$G" >"$SCRATCH/cut.ospc"
expect_exit 1 "$ONESCOPE" dump "$SCRATCH/cut.ospc" --poses
one_line
# --csv is RFC 4180: names holding commas, quotes and line breaks come back exactly through
# Python's csv module, row for row equal to the --json output.
"$ONESCOPE" convert "$G" "$SCRATCH/g.anm" >/dev/null 2>&1
sed 's/"name": "body 0"/"name": "a,\\"b\\"\\nc\\r\\nd"/; s/"name": "body 1"/"name": "caf\\u00e9 \\"\\""/' \
    "$SCRATCH/g.anm" >"$SCRATCH/w.anm"
expect_exit 0 "$ONESCOPE" convert "$SCRATCH/w.anm" "$SCRATCH/w.ospc"
"$ONESCOPE" dump "$SCRATCH/w.ospc" --poses --csv --frames 0:2 >"$SCRATCH/w.csv"
"$ONESCOPE" dump "$SCRATCH/w.ospc" --poses --json --frames 0:2 >"$SCRATCH/w.json"
/usr/bin/python3 - "$SCRATCH/w.csv" "$SCRATCH/w.json" <<'PY' && ok || bad "csv round trip"
import csv, json, sys
with open(sys.argv[1], newline="", encoding="utf-8", errors="strict") as f:
    rows = list(csv.reader(f, strict=True))
doc = json.load(open(sys.argv[2], encoding="utf-8"))
assert rows[0] == "frame,step,entity,name,present,x,y,z,qx,qy,qz,qw".split(","), rows[0]
body = rows[1:]
assert len(body) == len(doc["poses"]), (len(body), len(doc["poses"]))
names = set()
for r, p in zip(body, doc["poses"]):
    assert len(r) == 12, r
    assert int(r[0]) == p["frame"] and int(r[1]) == p["step"] and int(r[2]) == p["entity"], r
    assert r[3] == p["name"], (r[3], p["name"])
    names.add(r[3])
    if p["present"]:
        assert [float(x) for x in r[5:8]] == p["position"], r
assert 'a,"b"\nc\r\nd' in names and 'caf\u00e9 ""' in names, names
PY
finish
