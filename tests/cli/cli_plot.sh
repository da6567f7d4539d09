# CLI contract for plot: every plot kind from testdata/, as SVG (parsed, rendered by rsvg-convert)
# and PNG (decoded), and what is drawn checked by tests/cli/plot_check.py.
. "$(dirname "$0")/common.sh"
T="$SRC/testdata"
PY=/usr/bin/python3
CHECK="$SRC/tests/cli/plot_check.py"

"$ONESCOPE" plot "$T/test-2d-600.ostm" -o "$SCRATCH/probe.svg" >"$SCRATCH/out" 2>"$SCRATCH/err"
if grep -q "no plot support" "$SCRATCH/err"; then
    if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && [ ! -e "$SCRATCH/probe.svg" ]; then
        echo "SKIPPED: built without cairo"
        exit 77
    fi
    echo "FAIL: the no-plot refusal is not one line or left a file" >&2
    exit 1
fi
if ! command -v rsvg-convert >/dev/null; then echo "SKIPPED: rsvg-convert missing (scripts/deps.sh)"; exit 77; fi

check() { if "$PY" "$CHECK" "$@" >>"$SCRATCH/checks" 2>&1; then ok; else bad "plot_check $*"; tail -3 "$SCRATCH/checks" >&2; fi; }
# render NAME ARGS...: the same plot as SVG and PNG; the SVG parsed and rendered by rsvg-convert
render() {
    local name=$1
    shift
    expect_exit 0 "$ONESCOPE" plot "$@" -o "$SCRATCH/$name.svg"
    expect_exit 0 "$ONESCOPE" plot "$@" -o "$SCRATCH/$name.png"
    check png "$SCRATCH/$name.png"
    if rsvg-convert "$SCRATCH/$name.svg" -o "$SCRATCH/$name-rsvg.png"; then ok; else bad "rsvg-convert $name.svg"; fi
    check png "$SCRATCH/$name-rsvg.png"
}

# 2D replay: the bodies' colours where their trajectories pass (positions from dump --poses)
render r2d "$T/test-2d-600.ostm" --from 0 --to 300
check svg "$SCRATCH/r2d.svg" test-2d-600.ostm spawn removal "link hand-over"
"$ONESCOPE" -q ghost "$T/test-2d-600.ostm" "$SCRATCH/all.ospc" --from 0 --frames 301
"$ONESCOPE" dump "$SCRATCH/all.ospc" --poses --csv >"$SCRATCH/all.csv"
check colours "$SCRATCH/r2d.svg" "$SCRATCH/r2d.png" "$SCRATCH/all.csv"
check colours "$SCRATCH/r2d.svg" "$SCRATCH/r2d-rsvg.png" "$SCRATCH/all.csv"
# the script spawns and removes: both are marked
grep -q 'class="spawn"' "$SCRATCH/r2d.svg" && grep -q 'class="removal"' "$SCRATCH/r2d.svg" && ok || bad "no spawn or removal marker"

# a ghost over its replay: the legend names both; the ghost's colours sit 400 mm right
render ghost "$T/test-2d-600.ostm" "$T/test-2d-ghost.ospc" --from 200 --to 239
check svg "$SCRATCH/ghost.svg" test-2d-600.ostm test-2d-ghost.ospc
"$ONESCOPE" dump "$T/test-2d-ghost.ospc" --poses --csv >"$SCRATCH/ghost.csv"
check colours "$SCRATCH/ghost.svg" "$SCRATCH/ghost.png" "$SCRATCH/ghost.csv"

# 3D: top and side views; the link pair's hand-over is marked in the receiver
render r3d "$T/test-link-right.ostm" "$T/test-link-left.ostm"
check svg "$SCRATCH/r3d.svg" test-link-right.ostm test-link-left.ostm
[ "$(grep -c 'class="handover"' "$SCRATCH/r3d.svg")" -ge 2 ] && ok || bad "no hand-over in both views"
grep -q 'data-name="top x-z"' "$SCRATCH/r3d.svg" && grep -q 'data-name="side x-y"' "$SCRATCH/r3d.svg" && ok || bad "3D views"

# pose cache alone
render cache "$T/test-2d-ghost.ospc"
check colours "$SCRATCH/cache.svg" "$SCRATCH/cache.png" "$SCRATCH/ghost.csv"

# fields: every cell's value recomputed from replay --json --state; the scale covers them
"$ONESCOPE" replay "$T/test-field-2d.ostm" --json --state >"$SCRATCH/f2.json"
"$ONESCOPE" replay "$T/test-field-3d.ostm" --json --state >"$SCRATCH/f3.json"
render dens "$T/test-field-2d.ostm" --field density --step 150
check field "$SCRATCH/dens.svg" "$SCRATCH/f2.json" density 150
render occ "$T/test-field-3d.ostm" --field occupancy --step 100
check field "$SCRATCH/occ.svg" "$SCRATCH/f3.json" occupancy 100

# diff: the ghost is its replay 400 mm to the right at every step, so the line is flat at 400
render diff --diff "$T/test-2d-600.ostm" "$T/test-2d-ghost.ospc"
check flat "$SCRATCH/diff.svg" 400
check svg "$SCRATCH/diff.svg" test-2d-600.ostm test-2d-ghost.ospc "largest distance, matched ids"

# titles and legends are never cut: a name too long for the column is shortened in the middle
# (ends kept), its whole text in the SVG's <title>; the title likewise
long="a-very-long-input-name-that-would-not-fit-the-legend-column.ospc"
cp "$T/test-2d-ghost.ospc" "$SCRATCH/$long"
expect_exit 0 "$ONESCOPE" plot "$SCRATCH/$long" --title "$(printf 't%.0s' $(seq 200))" -o "$SCRATCH/longname.svg"
check svg "$SCRATCH/longname.svg" "$long"
grep -q '>a-very-lo[^<]*…[^<]*\.ospc<title>a-very-long-input-name' "$SCRATCH/longname.svg" && ok || bad "long legend name not shortened in the middle"
grep -q 'class="title"[^>]*>t*…t*<title>' "$SCRATCH/longname.svg" && ok || bad "long title not shortened"
# the colour key names every entity drawn; --entity keeps those it names (id or name)
check svg "$SCRATCH/ghost.svg" "body 0" "body 21"
render ent "$T/test-2d-600.ostm" --entity "1,body 3" --from 0 --to 300
check svg "$SCRATCH/ent.svg" "body 0" "body 3"
strokes=$(grep 'class="path"' "$SCRATCH/ent.svg" | sed 's/.*stroke="\([^"]*\)".*/\1/' | sort -u | tr '\n' ' ')
[ "$strokes" = "#1f77b4 #d62728 " ] && ok || bad "--entity drew the colours $strokes, not body 0's and body 3's"
# a cache labelled up=z: its top view is x-y, its side x-z
cat >"$SCRATCH/zup.json" <<'JSONEOF'
{"dims": 3, "mpu": 1, "unit": "m", "label": "up=z",
 "entities": [{"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}],
 "frames": [[[0, 0, 0], [1, 3, 0.5], [2, 0, 1], [3, 3, 1.5]],
            [[0, 0, 0], [1, 3, 0.5], [2, 0, 1], [3, 3, 1.5]]]}
JSONEOF
"$PY" "$SRC/tests/cli/view_check.py" ospc "$SCRATCH/zup.json" "$SCRATCH/zup.ospc" # a cache by hand
expect_exit 0 "$ONESCOPE" plot "$SCRATCH/zup.ospc" -o "$SCRATCH/zup.svg"
grep -q 'data-name="top x-y"' "$SCRATCH/zup.svg" && grep -q 'data-name="side x-z"' "$SCRATCH/zup.svg" && ok || bad "z-up cache: not top x-y, side x-z"

# a figure over 4096 x 4096 pixels is drawn at its own size (no 2x supersampling): the
# trajectories are still there in the bodies' colours
"$ONESCOPE" plot "$T/test-2d-600.ostm" --from 0 --to 300 --width 8192 --height 2100 -o "$SCRATCH/wide.svg"
expect_exit 0 "$ONESCOPE" plot "$T/test-2d-600.ostm" --from 0 --to 300 --width 8192 --height 2100 -o "$SCRATCH/wide.png"
check colours "$SCRATCH/wide.svg" "$SCRATCH/wide.png" "$SCRATCH/all.csv"

# the 10 000-step replay: simplified, so the SVG stays small
expect_exit 0 "$ONESCOPE" plot "$T/test-10000.ostm" -o "$SCRATCH/big.svg"
[ "$(wc -c <"$SCRATCH/big.svg")" -lt 4000000 ] && ok || bad "big.svg is $(wc -c <"$SCRATCH/big.svg") bytes"

# issue 21.10: a long valid replay (200 000 empty steps of 16 bodies, no hash rows; 0.3.0 drew
# a 12 MB SVG of it, the issue's 4 M steps of 64 bodies 992 MB). Each body's line keeps only
# the extremes of its pixel columns: the SVG stays under 1 MB, parses, renders, and says in
# its legend and in one stderr line that it was simplified.
python3 - "$SCRATCH/long.ostm" <<'PY'
import struct, sys
setup = struct.pack('<BBI', 2, 16, 5)
b = b'OSTM' + struct.pack('<HHI', 1, 0, len(setup)) + setup + struct.pack('<I', 200000)
open(sys.argv[1], 'wb').write(b + b'\0\0' * 200000)
PY
expect_exit 0 "$ONESCOPE" plot "$SCRATCH/long.ostm" -o "$SCRATCH/long.svg"
size=$(wc -c <"$SCRATCH/long.svg")
[ "$size" -lt 1000000 ] && ok || bad "long.svg is $size bytes"
# (an unbounded SVG takes rsvg-convert many minutes: the checks below need the bounded one)
[ "$size" -lt 1000000 ] || : >"$SCRATCH/long.svg"
[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && ok || bad "not one line on stderr for long.svg"
expect_grep "long.svg: simplified: 16 lines kept only their extremes per pixel column" "$SCRATCH/err"
check svg "$SCRATCH/long.svg" long.ostm
expect_grep 'class="note"[^>]*>simplified (16 lines)<' "$SCRATCH/long.svg"
if command -v xmllint >/dev/null; then
    xmllint --noout "$SCRATCH/long.svg" && ok || bad "xmllint long.svg"
fi
rsvg-convert "$SCRATCH/long.svg" -o "$SCRATCH/long-rsvg.png" && ok || bad "rsvg-convert long.svg"
# the line still spans what the bodies did: its points reach both walls of the 10 m box
if "$PY" - "$SCRATCH/long.svg" <<'PY'; then ok; else bad "long.svg does not reach both walls"; fi
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
g = [e for e in root.iter(NS + "g") if e.get("class") == "panel"][0]
sx, ox = float(g.get("data-sx")), float(g.get("data-ox"))
xs = [(float(p.split(",")[0]) - ox) / sx for e in root.iter(NS + "polyline")
      if e.get("class") == "path" for p in e.get("points").split()]
assert min(xs) < 0.1 and max(xs) > 9.9, (min(xs), max(xs))  # metres
PY
# PNG too: the same bounded drawing rasterised
expect_exit 0 "$ONESCOPE" plot "$SCRATCH/long.ostm" -o "$SCRATCH/long.png"
check png "$SCRATCH/long.png"
# a short input is drawn as before: every point within half a pixel, no note anywhere
expect_exit 0 "$ONESCOPE" plot "$T/test-2d-600.ostm" -o "$SCRATCH/short.svg"
[ ! -s "$SCRATCH/err" ] && ok || bad "a note for a short input: $(cat "$SCRATCH/err")"
! grep -q simplified "$SCRATCH/short.svg" && ok || bad "short.svg says simplified"

# bad input to every option: one line, exit 2 (usage) or 1 (bad file); OUT never created
one_line() { if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ]; then ok; else bad "not one line:"; cat "$SCRATCH/err" >&2; fi; }
usage() { expect_exit 2 "$ONESCOPE" plot "$@"; one_line; }
usage "$T/test-2d-600.ostm"
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.pdf"
usage "$T/test-2d-600.ostm" -o
usage -o "$SCRATCH/x.svg"
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --from 10 --to 5
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --from -1
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --to ten
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --width 10
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --height 99999
usage "$T/test-field-2d.ostm" -o "$SCRATCH/x.svg" --field heat --step 1
usage "$T/test-field-2d.ostm" -o "$SCRATCH/x.svg" --field density
usage "$T/test-field-2d.ostm" -o "$SCRATCH/x.svg" --step 3
usage "$T/test-field-2d.ostm" "$T/test-field-3d.ostm" -o "$SCRATCH/x.svg" --field density --step 3
usage --diff "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg"
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --colour red
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --entity 1,nobody
expect_grep "no input has an entity 'nobody'" "$SCRATCH/err"
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --entity 1,,2
usage "$T/test-2d-600.ostm" -o "$SCRATCH/x.jpg"
expect_grep "OUT must end in .svg or .png" "$SCRATCH/err"
fails() { expect_exit 1 "$ONESCOPE" plot "$@"; one_line; [ ! -e "$SCRATCH/x.svg" ] && ok || bad "x.svg created: $*"; }
fails "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --from 700
expect_grep "test-2d-600.ostm: holds host steps 0 to 600, none in --from/--to" "$SCRATCH/err"
fails "$T/test-2d-600.ostm" "$T/test-10000.ostm" -o "$SCRATCH/x.svg"
expect_grep "one is 2D, the other 3D" "$SCRATCH/err"
fails "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --field density --step 5
expect_grep "has no fields" "$SCRATCH/err"
fails "$T/test-2d-ghost.ospc" -o "$SCRATCH/x.svg" --field density --step 5
fails "$T/test-field-2d.ostm" -o "$SCRATCH/x.svg" --field density --step 301
expect_grep "outside its host steps 0 to 300" "$SCRATCH/err"
fails --diff "$T/test-2d-ghost.ospc" "$T/test-2d-600.ostm" -o "$SCRATCH/x.svg" --from 300
printf 'not a cache' >"$SCRATCH/junk.bin"
fails "$SCRATCH/junk.bin" -o "$SCRATCH/x.svg"
expect_grep "junk.bin: offset 0: plot draws OSTM replays, module recordings and OSPC pose caches, found no known format" "$SCRATCH/err"
fails "$SCRATCH/missing.ostm" -o "$SCRATCH/x.svg"
head -c 100 "$T/test-2d-600.ostm" >"$SCRATCH/cut.ostm"
fails "$SCRATCH/cut.ostm" -o "$SCRATCH/x.svg"
# a cache ending at the last host step (2^63 - 1): its range, a --from/--to there and --diff
# against itself, with no step arithmetic past int64_t (UBSan in the asan build)
cat >"$SCRATCH/top.json" <<'JSONEOF'
{"dims": 2, "mpu": 1, "unit": "m", "start": 9223372036854775805,
 "entities": [{"id": 1}, {"id": 2}],
 "frames": [[[0, 0, 0], [1, 1, 0]], [[0, 1, 0], [1, 2, 0]], [[0, 2, 0], [1, 3, 0]]]}
JSONEOF
"$PY" "$SRC/tests/cli/view_check.py" ospc "$SCRATCH/top.json" "$SCRATCH/top.ospc"
cp "$SCRATCH/top.ospc" "$SCRATCH/top2.ospc"
expect_exit 0 "$ONESCOPE" plot "$SCRATCH/top.ospc" -o "$SCRATCH/top.svg"
expect_exit 0 "$ONESCOPE" plot "$SCRATCH/top.ospc" --from 9223372036854775807 -o "$SCRATCH/top1.svg"
expect_exit 0 "$ONESCOPE" plot "$SCRATCH/top.ospc" "$SCRATCH/top2.ospc" --diff -o "$SCRATCH/topd.svg"
# ... its steps drawn from the first (a double cannot tell 2^63 - 3 from 2^63 - 1): a finite
# scale, ticks on the step axis, the origin named
grep -q 'data-sx="inf"\|data-ox="-inf"\|nan' "$SCRATCH/topd.svg" && bad "topd.svg: an infinite or NaN scale" || ok
expect_grep ">host step - 9223372036854775805<" "$SCRATCH/topd.svg"
expect_exit 1 "$ONESCOPE" plot "$SCRATCH/top.ospc" --to 9223372036854775804 -o "$SCRATCH/top2.svg"
expect_grep "holds host steps 9223372036854775805 to 9223372036854775807, none in --from/--to" "$SCRATCH/err"

# an input named like a picture is never overwritten by the picture
cp "$T/test-2d-ghost.ospc" "$SCRATCH/same.svg"
expect_exit 1 "$ONESCOPE" plot "$SCRATCH/same.svg" -o "$SCRATCH/same.svg"
cmp -s "$SCRATCH/same.svg" "$T/test-2d-ghost.ospc" && ok || bad "plot overwrote its input"
finish
