# CLI contract for OTS .pvt and .anm files: validate, dump, rewrite, convert.
. "$(dirname "$0")/common.sh"

cat >"$SCRATCH/clip.anm" <<'JSON'
{
  "format": "octo_anm",
  "version": 4,
  "source": "maya",
  "frame_range": [1, 12],
  "fps": 24.0,
  "coordinate_system": {"up": "y", "hand": "right", "unit": "meters",
    "rot_order": "xyz", "rot_repr_anim": "euler_deg", "rot_repr_rest": "quat_wxyz"},
  "pegs": [
    {"name": "root-P", "parent": null, "rest_pivot": [0, 0, 0], "rest_rotation": [1, 0, 0, 0],
     "keyframes": [
       {"frame": 1, "pos": [0, 0, 0], "rot_quat": [1, 0, 0, 0], "scl": [1, 1, 1], "interp": "LINEAR"},
       {"frame": 12, "pos": [11, 0, 0], "rot_quat": [1, 0, 0, 0], "scl": [1, 1, 1], "interp": "LINEAR"}
     ]},
    {"name": "hip-P", "path": "Top/hip-P", "parent": "root-P", "rest_pivot": [0, 1, 0],
     "rest_rotation": [1, 0, 0, 0], "rig": "ship",
     "keyframes": [
       {"frame": 1, "pos": [0, 1, 0], "rot": [0, 0, 0], "scl": [1, 1, 1], "interp": "BEZIER",
        "handles": {"pos": [[[1, 0], [4, 0]], [[1, 1], [4, 1]], []], "rot": [], "scl": []}}
     ]}
  ],
  "cameras": [
    {"name": "cam", "peg": "hip-P", "is_default": true, "fov": 40, "fov_axis": "vertical",
     "override_fov": false, "near_plane": 0.1, "far_plane": 100, "near_field": 1, "far_field": 100,
     "angle": 0, "offset_x": 0, "offset_y": 0, "offset_z": 12, "pivot_x": 0, "pivot_y": 0}
  ]
}
JSON

cat >"$SCRATCH/rig.pvt" <<'JSON'
{"format": "octo_pvt", "version": 4, "source": "harmony", "name": "ship", "scale_factor": 2.0,
 "pivot_space": "local", "fps": 24.0,
 "coordinate_system": {"up": "y", "hand": "right", "unit": "meters", "rot_order": "xyz",
   "rot_repr_anim": "euler_deg", "rot_repr_rest": "quat_wxyz"},
 "bones": [{"name": "hip", "parent": null, "pivot": [0, 2, 0], "rotation": [1, 0, 0, 0]}],
 "cameras": []}
JSON

sed 's/"version": 4/"version": 3/' "$SCRATCH/clip.anm" >"$SCRATCH/v3.anm"
sed 's/"fps": 24.0,/"fps": 24.0, "fps": 25.0,/' "$SCRATCH/clip.anm" >"$SCRATCH/dup.anm"
sed 's/"interp": "BEZIER"/"interp": "SMOOTH"/' "$SCRATCH/clip.anm" >"$SCRATCH/enum.anm"
sed 's/"frame_range": \[1, 12\]/"frame_range": [1, 1e999]/' "$SCRATCH/clip.anm" >"$SCRATCH/inf.anm"

# validate
expect_exit 0 "$ONESCOPE" validate "$SCRATCH/clip.anm" "$SCRATCH/rig.pvt"
expect_grep "clip.anm: valid anm" "$SCRATCH/out"
expect_grep "rig.pvt: valid pvt" "$SCRATCH/out"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/clip.anm" "$SCRATCH/v3.anm" "$SCRATCH/dup.anm" "$SCRATCH/enum.anm" "$SCRATCH/inf.anm"
expect_grep "v3.anm: line 3, column 14: version: unsupported version 3 (this build writes/reads v4; no backward migration — re-export from the source DCC)" "$SCRATCH/err"
expect_grep "dup.anm: line 6, column 23: fps: expected each key once per object" "$SCRATCH/err"
expect_grep 'enum.anm: line 18, column [0-9]*: pegs\[1\].keyframes\[0\].interp: expected BEZIER, LINEAR or CONSTANT, found "SMOOTH"' "$SCRATCH/err"
expect_grep "inf.anm: line 5, column [0-9]*: frame_range\[1\]: expected a finite number" "$SCRATCH/err"
if [ "$(wc -l <"$SCRATCH/err")" -eq 4 ]; then ok; else bad "one line per bad file"; fi

# validate lists every error of one file (file order), up to --max-errors
sed -e 's/"interp": "BEZIER"/"interp": "SMOOTH"/' -e 's/"fps": 24.0,/"fps": "fast",/' \
    -e 's/"is_default": true/"is_default": 1/' "$SCRATCH/clip.anm" >"$SCRATCH/three.anm"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/three.anm"
if [ "$(wc -l <"$SCRATCH/err")" -eq 3 ]; then ok; else bad "three errors, three lines"; fi
if sed -n 1p "$SCRATCH/err" | grep -q ": fps: expected a number" &&
    sed -n 2p "$SCRATCH/err" | grep -q "interp: expected BEZIER" &&
    sed -n 3p "$SCRATCH/err" | grep -q "cameras\[0\].is_default: expected true or false"; then
    ok
else
    bad "the errors are not in file order"
fi
expect_exit 1 "$ONESCOPE" validate --max-errors 2 "$SCRATCH/three.anm"
if [ "$(wc -l <"$SCRATCH/err")" -eq 3 ]; then ok; else bad "two errors and the limit line"; fi
expect_grep "three.anm: stopped at 2 errors (--max-errors); there may be more" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" validate --max-errors 1 "$SCRATCH/three.anm"
if [ "$(wc -l <"$SCRATCH/err")" -eq 2 ]; then ok; else bad "--max-errors 1: the first error and the limit line"; fi
expect_grep "three.anm: stopped at 1 error (--max-errors)" "$SCRATCH/err"
# the list ended on a syntax error: no "there may be more" even at the limit
head -c 400 "$SCRATCH/three.anm" >"$SCRATCH/cut.anm"
expect_exit 1 "$ONESCOPE" validate --max-errors 2 "$SCRATCH/cut.anm"
if [ "$(wc -l <"$SCRATCH/err")" -eq 2 ] && ! grep -q "stopped at" "$SCRATCH/err"; then
    ok
else
    bad "a list that ended on a syntax error is not cut by the limit"
fi
expect_exit 2 "$ONESCOPE" validate --max-errors 0 "$SCRATCH/three.anm"
expect_exit 2 "$ONESCOPE" validate --max-errors many "$SCRATCH/three.anm"

# dump
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/clip.anm"
expect_grep "pegs  *2" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/clip.anm" --json
expect_grep '"peg_count": 2' "$SCRATCH/out"
expect_grep '"keyframe_count": 3' "$SCRATCH/out"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$SCRATCH/out"; then ok; else bad "dump --json is not JSON"; fi
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/rig.pvt" --json
expect_grep '"scale_factor": 2' "$SCRATCH/out"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$SCRATCH/out"; then ok; else bad "dump --json is not JSON"; fi
expect_exit 1 "$ONESCOPE" dump "$SCRATCH/v3.anm"

# rewrite: the writer's output is stable, valid JSON, and a fixed point
expect_exit 0 "$ONESCOPE" rewrite "$SCRATCH/clip.anm" "$SCRATCH/one.anm"
expect_exit 0 "$ONESCOPE" rewrite "$SCRATCH/one.anm" "$SCRATCH/two.anm"
if cmp -s "$SCRATCH/one.anm" "$SCRATCH/two.anm"; then ok; else bad "rewrite is not stable"; fi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"] == 4 and d["pegs"][1]["path"] == "Top/hip-P"' "$SCRATCH/one.anm"; then ok; else bad "rewritten .anm does not read back in python"; fi
expect_grep '"pivot": \[0.0, 2.0, 0.0\]' <("$ONESCOPE" rewrite "$SCRATCH/rig.pvt" - 2>&1)
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/dup.anm" "$SCRATCH/never.anm"
if [ ! -e "$SCRATCH/never.anm" ]; then ok; else bad "rewrite created OUT for invalid input"; fi

# convert: .anm -> .ospc -> .anm
expect_exit 0 "$ONESCOPE" convert "$SCRATCH/clip.anm" "$SCRATCH/clip.ospc"
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/clip.ospc" --json
expect_grep '"entity_count": 2' "$SCRATCH/out"
expect_grep '"frame_count": 12' "$SCRATCH/out"
expect_grep '"start_step": 1' "$SCRATCH/out"
expect_grep '"name": "hip-P"' "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" convert "$SCRATCH/clip.ospc" "$SCRATCH/back.anm" --fps 30 --source harmony
expect_exit 0 "$ONESCOPE" validate "$SCRATCH/back.anm"
expect_grep '"fps": 30.0' "$SCRATCH/back.anm"
expect_grep '"source": "harmony"' "$SCRATCH/back.anm"
expect_exit 0 "$ONESCOPE" convert "$SCRATCH/back.anm" "$SCRATCH/again.ospc"
if cmp -s "$SCRATCH/clip.ospc" "$SCRATCH/again.ospc"; then ok; else bad "ospc -> anm -> ospc changed the cache"; fi
expect_exit 0 "$ONESCOPE" convert --world "$SCRATCH/clip.anm" "$SCRATCH/world.ospc"
expect_exit 1 "$ONESCOPE" convert "$SCRATCH/rig.pvt" "$SCRATCH/rig.ospc"
expect_grep "rig.pvt: a .pvt rig has no pose-cache conversion" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" convert "$SCRATCH/v3.anm" "$SCRATCH/never.ospc"
expect_grep "unsupported version 3" "$SCRATCH/err"
if [ ! -e "$SCRATCH/never.ospc" ]; then ok; else bad "convert created OUT for invalid input"; fi
expect_exit 2 "$ONESCOPE" convert "$SCRATCH/clip.anm" "$SCRATCH/x.anm"
expect_exit 2 "$ONESCOPE" convert "$SCRATCH/clip.anm"
expect_exit 2 "$ONESCOPE" convert "$SCRATCH/clip.ospc" "$SCRATCH/x.anm" --fps 0
expect_exit 2 "$ONESCOPE" convert "$SCRATCH/clip.ospc" "$SCRATCH/x.anm" --source houdini
expect_exit 2 "$ONESCOPE" convert --frobnicate a b
expect_exit 0 "$ONESCOPE" convert --help
expect_grep "usage: onescope convert" "$SCRATCH/out"
expect_exit 1 "$ONESCOPE" convert "$SCRATCH/clip.anm" "$SCRATCH/clip.anm"
# standard input and output
if "$ONESCOPE" convert - - <"$SCRATCH/clip.anm" | "$ONESCOPE" convert - - | "$ONESCOPE" -q validate -; then ok; else bad "convert through pipes"; fi
printf '{"format": "octo_pvt"}' >"$SCRATCH/nover.pvt"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/nover.pvt"
expect_grep 'nover.pvt: line 1, column 1: version: expected a key "version", found none' "$SCRATCH/err"

# issue 14 item 3: a 7 KB .anm of 40 pegs over 4 194 304 frames is refused from its counts at
# once (it used to bake 4.6 GB first), naming the input and the limit; no file, no partial
python3 - "$SCRATCH/long.anm" <<'PY'
import json, sys
pegs = [{"name": "p%02d" % i, "parent": None, "rest_pivot": [0, 0, 0], "rest_rotation": [1, 0, 0, 0],
         "keyframes": [{"frame": 0, "pos": [i, 0, 0], "rot_quat": [1, 0, 0, 0], "scl": [1, 1, 1],
                        "interp": "LINEAR"}]} for i in range(40)]
d = {"format": "octo_anm", "version": 4, "source": "maya", "frame_range": [0, 4194303], "fps": 24.0,
     "coordinate_system": {"up": "y", "hand": "right", "unit": "meters", "rot_order": "xyz",
                           "rot_repr_anim": "euler_deg", "rot_repr_rest": "quat_wxyz"},
     "pegs": pegs, "cameras": []}
open(sys.argv[1], "w").write(json.dumps(d, separators=(",", ":")))
PY
expect_exit 1 "$ONESCOPE" convert "$SCRATCH/long.anm" "$SCRATCH/long.ospc"
expect_grep "long.anm: output size: expected at most 268435456 bytes (the pose-cache file limit; ask for segments), found 4697621689 bytes (4194304 frames of 40 pegs)" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && ok || bad "the refusal is not one line"
[ ! -e "$SCRATCH/long.ospc" ] && [ ! -e "$SCRATCH/long.ospc.partial" ] && ok || bad "a refused bake left a file"
# the streamed bake equals the in-memory one (standard output); --segments is taken, not with '-'
expect_exit 0 "$ONESCOPE" convert --segments "$SCRATCH/clip.anm" "$SCRATCH/seg.ospc"
"$ONESCOPE" convert "$SCRATCH/clip.anm" - <"$SCRATCH/clip.anm" >"$SCRATCH/mem.ospc"
cmp -s "$SCRATCH/seg.ospc" "$SCRATCH/mem.ospc" && ok || bad "streamed bake differs from the in-memory one"
expect_exit 2 "$ONESCOPE" convert --segments "$SCRATCH/clip.anm" -
expect_grep "segments needs a file OUT" "$SCRATCH/err"
# a regular .anm IN and a file OUT stream (bounded memory): the same bytes as the whole-text
# path (standard input or output), and for a bad clip the same one line, for each clip here
for f in clip v3 dup enum inf long; do
    "$ONESCOPE" convert "$SCRATCH/$f.anm" "$SCRATCH/s-$f.ospc" 2>"$SCRATCH/s-err"
    s_rc=$?
    "$ONESCOPE" convert "$SCRATCH/$f.anm" - >"$SCRATCH/m-$f.ospc" 2>"$SCRATCH/m-err"
    m_rc=$?
    [ "$s_rc" -eq "$m_rc" ] && ok || bad "$f.anm: streamed convert exit $s_rc, in memory $m_rc"
    cmp -s "$SCRATCH/s-err" "$SCRATCH/m-err" && ok || bad "$f.anm: streamed convert said $(cat "$SCRATCH/s-err"), in memory $(cat "$SCRATCH/m-err")"
    if [ "$m_rc" -eq 0 ]; then
        cmp -s "$SCRATCH/s-$f.ospc" "$SCRATCH/m-$f.ospc" && ok || bad "$f.anm: streamed bytes differ"
    else
        [ ! -e "$SCRATCH/s-$f.ospc" ] && ok || bad "$f.anm: a refused streamed convert left OUT"
        [ "$(wc -l <"$SCRATCH/s-err")" -eq 1 ] && ok || bad "$f.anm: not one line"
    fi
done
# standard input and a pipe to an OUT ending in .ospc stream too (issue 25): the bytes and the
# one line of the whole-text path, which names the input <stdin> as well
for f in clip v3 dup enum inf long; do
    "$ONESCOPE" convert - "$SCRATCH/p-$f.ospc" <"$SCRATCH/$f.anm" 2>"$SCRATCH/p-err"
    p_rc=$?
    "$ONESCOPE" convert - - <"$SCRATCH/$f.anm" >"$SCRATCH/w-$f.ospc" 2>"$SCRATCH/w-err"
    w_rc=$?
    [ "$p_rc" -eq "$w_rc" ] && ok || bad "$f.anm on stdin: streamed exit $p_rc, whole $w_rc"
    cmp -s "$SCRATCH/p-err" "$SCRATCH/w-err" && ok || bad "$f.anm on stdin: streamed said $(cat "$SCRATCH/p-err"), whole $(cat "$SCRATCH/w-err")"
    if [ "$w_rc" -eq 0 ]; then
        cmp -s "$SCRATCH/p-$f.ospc" "$SCRATCH/w-$f.ospc" && ok || bad "$f.anm on stdin: streamed bytes differ"
    else
        [ ! -e "$SCRATCH/p-$f.ospc" ] && ok || bad "$f.anm on stdin: a refused convert left OUT"
    fi
done
cat "$SCRATCH/clip.anm" | "$ONESCOPE" convert - "$SCRATCH/pipe.ospc" && ok || bad "convert from a pipe"
cmp -s "$SCRATCH/pipe.ospc" "$SCRATCH/w-clip.ospc" && ok || bad "convert from a pipe: other bytes"
# a cache on a stream cannot be looked at first: given for an .ospc OUT, it is named in one line
expect_exit 1 "$ONESCOPE" convert - "$SCRATCH/twice.ospc" <"$SCRATCH/w-clip.ospc"
expect_grep "<stdin>: offset 0: content: expected an OTS .anm clip, found an OSPC pose cache" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && [ ! -e "$SCRATCH/twice.ospc" ] && ok || bad "a cache for a clip: not one line, or OUT left"
# any other OUT reads the stream whole and lets the content decide, as before
expect_exit 0 "$ONESCOPE" convert - "$SCRATCH/back.anm" <"$SCRATCH/w-clip.ospc"
expect_exit 0 "$ONESCOPE" -q validate "$SCRATCH/back.anm"

# a cache whose .anm would pass 256 MiB is refused from its size, naming the input
python3 - "$SCRATCH/wide.ospc" <<'PY'
import struct, sys
ents, frames = 65536, 14
head = b"OSPC" + struct.pack("<HHBBH", 1, 0, 3, 0, 0) + struct.pack("<IIqd", ents, frames, 0, 0.0)
parts = [head, b"\0\0" * 6]
parts += [struct.pack("<QB3x3f", i + 1, 0, 0, 0, 0) + b"\0\0" for i in range(ents)]
parts.append(struct.pack("<7f", 0, 0, 0, 0, 0, 0, 1) * (ents * frames))
open(sys.argv[1], "wb").write(b"".join(parts))
PY
expect_exit 0 "$ONESCOPE" -q validate "$SCRATCH/wide.ospc"
expect_exit 1 "$ONESCOPE" convert --keys all --unit m "$SCRATCH/wide.ospc" "$SCRATCH/wide.anm"
expect_grep "wide.ospc: output size: expected at most 268435456 bytes (the .anm output limit), found at least 275251200 bytes (917504 keyframes" "$SCRATCH/err"
[ ! -e "$SCRATCH/wide.anm" ] && ok || bad "a refused conversion left a file"

# conversions that keep meaning: the unit, the up axis, the keyframes (docs/ots.md, section 7)
G="$SRC/testdata/test-2d-ghost.ospc"
expect_exit 0 "$ONESCOPE" convert "$G" "$SCRATCH/mm.anm"
# body 0 starts at 3744 mm, 9810 mm: 3.744 m, 9.81 m in the .anm (labelled metres)
expect_grep '"unit": "meters"' "$SCRATCH/mm.anm"
if python3 - "$SCRATCH/mm.anm" <<'PY'; then ok; else bad "cache in mm -> .anm not in metres"; fi
import json, sys
clip = json.load(open(sys.argv[1]))
k = clip["pegs"][0]["keyframes"][0]
sys.exit(0 if k["pos"][:2] == [3744 * 0.001, 9810 * 0.001] and clip["coordinate_system"]["up"] == "y" else 1)
PY
# back in millimetres: every pose as it was
expect_exit 0 "$ONESCOPE" convert --unit mm "$SCRATCH/mm.anm" "$SCRATCH/mm.ospc"
"$ONESCOPE" dump --poses --csv "$G" >"$SCRATCH/poses-a.csv"
"$ONESCOPE" dump --poses --csv "$SCRATCH/mm.ospc" >"$SCRATCH/poses-b.csv"
# every row present in the original is the same text (absent ones come back held)
if paste -d '|' "$SCRATCH/poses-a.csv" "$SCRATCH/poses-b.csv" |
    awk -F'|' 'NR > 1 { split($1, a, ","); if (a[5] == 1) { n++; if ($1 != $2) bad++ } }
               END { exit !(n > 800 && bad == 0) }'; then ok; else bad "mm round trip changed poses"; fi
expect_exit 0 "$ONESCOPE" -q dump "$SCRATCH/mm.ospc"
expect_grep 'unit name        "mm"' "$SCRATCH/out"
# a unitless cache needs --unit
expect_exit 1 "$ONESCOPE" convert "$SCRATCH/wide.ospc" "$SCRATCH/wide.anm"
expect_grep "wide.ospc: metres per unit: expected a cache with a unit, or one given for it (CLI --unit), found a unitless cache" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" convert --unit cm "$G" "$SCRATCH/x.anm"
expect_grep "found 0.01 (the cache has 0.001)" "$SCRATCH/err"
# a still entity is one key; --keys all keeps every frame
expect_exit 0 "$ONESCOPE" convert --unit 1 "$SCRATCH/wide.ospc" "$SCRATCH/still.anm"
if python3 - "$SCRATCH/still.anm" <<'PY'; then ok; else bad "a still entity is not one key"; fi
import json, sys
pegs = json.load(open(sys.argv[1]))["pegs"]
sys.exit(0 if len(pegs) == 65536 and all(len(p["keyframes"]) == 1 for p in pegs) else 1)
PY
expect_exit 0 "$ONESCOPE" convert --keys all "$SCRATCH/clip.ospc" "$SCRATCH/all.anm"
if [ "$(grep -c '"frame"' "$SCRATCH/all.anm")" -eq 24 ]; then ok; else bad "--keys all is not a key per frame"; fi
# the up axis: a z-up clip to a cache and back stays z up; --up for a cache without one
sed 's/"up": "y"/"up": "z"/' "$SCRATCH/clip.anm" >"$SCRATCH/zup.anm"
expect_exit 0 "$ONESCOPE" convert "$SCRATCH/zup.anm" "$SCRATCH/zup.ospc"
expect_exit 0 "$ONESCOPE" convert "$SCRATCH/zup.ospc" "$SCRATCH/zup-back.anm"
expect_grep '"up": "z"' "$SCRATCH/zup-back.anm"
expect_exit 1 "$ONESCOPE" convert --up y "$SCRATCH/zup.ospc" "$SCRATCH/zup-y.anm"
expect_grep "zup.ospc: up: expected the up axis the cache records, found y (the cache says z)" "$SCRATCH/err"
expect_exit 0 "$ONESCOPE" convert --up x "$G" "$SCRATCH/xup.anm"
expect_grep '"up": "x"' "$SCRATCH/xup.anm"
# bad values of the new options
for bad_opt in "--unit 0" "--unit -1" "--unit furlong" "--unit 1e999" "--up w" "--up yy" "--keys some"; do
    expect_exit 2 "$ONESCOPE" convert $bad_opt "$G" "$SCRATCH/bad.anm"
    case $bad_opt in
    --unit*) expect_grep "convert: --unit (m, cm, mm or metres per unit) must be a decimal" \
        "$SCRATCH/err" ;;
    *) expect_grep "convert: ${bad_opt%% *} wants" "$SCRATCH/err" ;;
    esac
done
expect_exit 2 "$ONESCOPE" convert --up z "$SCRATCH/clip.anm" "$SCRATCH/bad.ospc"
expect_grep "is for a pose cache IN" "$SCRATCH/err"
expect_exit 2 "$ONESCOPE" convert --keys all "$SCRATCH/clip.anm" "$SCRATCH/bad.ospc"

# cache -> .anm file is written a peg at a time (docs/ots.md, section 7.3): the same bytes as
# the in-memory conversion behind OUT '-', a symlink followed, a mode kept, a device written
# in place, and a refusal leaves an existing OUT as it was
for case in "$G|" "$G|--keys all" "$SCRATCH/clip.ospc|--keys all --fps 30" "$SCRATCH/zup.ospc|" "$G|--up z --source maya"; do
    in=${case%%|*}
    opts=${case#*|}
    "$ONESCOPE" convert $opts "$in" - >"$SCRATCH/stream-mem.anm"
    expect_exit 0 "$ONESCOPE" convert $opts "$in" "$SCRATCH/stream-file.anm"
    if cmp -s "$SCRATCH/stream-mem.anm" "$SCRATCH/stream-file.anm"; then ok; else bad "convert $opts $in: file differs from stdout"; fi
done
printf 'old' >"$SCRATCH/keep.anm"
chmod 640 "$SCRATCH/keep.anm"
ln -sf keep.anm "$SCRATCH/link.anm"
expect_exit 0 "$ONESCOPE" convert "$G" "$SCRATCH/link.anm"
if [ -L "$SCRATCH/link.anm" ] && cmp -s "$SCRATCH/keep.anm" "$SCRATCH/mm.anm"; then ok; else bad "convert did not write through the symlink"; fi
if [ "$(stat -c %a "$SCRATCH/keep.anm")" = 640 ]; then ok; else bad "convert lost OUT's mode"; fi
printf 'old' >"$SCRATCH/keep.anm"
expect_exit 1 "$ONESCOPE" convert --keys all --unit m "$SCRATCH/wide.ospc" "$SCRATCH/keep.anm"
if [ "$(cat "$SCRATCH/keep.anm")" = old ]; then ok; else bad "a refused conversion changed OUT"; fi
if ls -a "$SCRATCH" | grep -q '\.tmp-'; then bad "a temporary was left behind"; else ok; fi
expect_exit 1 "$ONESCOPE" convert "$G" "$SCRATCH/no-such-dir/x.anm"
expect_grep "no-such-dir/x.anm: cannot create a temporary file" "$SCRATCH/err"
expect_exit 0 "$ONESCOPE" convert "$G" /dev/null
if [ -c /dev/null ]; then ok; else bad "convert replaced /dev/null"; fi

# OTS syntax errors in plain words, with line:column (docs/ots.md, section 1)
printf '\357\273\277{"format": "octo_anm", "version": 4}' >"$SCRATCH/bom.anm"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/bom.anm"
expect_grep "bom.anm: line 1, column 1: expected UTF-8 JSON text with no byte-order mark, found a UTF-8 byte-order mark" "$SCRATCH/err"
python3 -c "import sys; open(sys.argv[1], 'wb').write('{\"format\": \"octo_pvt\", \"version\": 4}'.encode('utf-16'))" "$SCRATCH/u16.pvt"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/u16.pvt"
expect_grep "u16.pvt: line 1, column 1: expected UTF-8 JSON text, found UTF-16 little-endian text (with a byte-order mark)" "$SCRATCH/err"
printf '{"format": "octo_anm",\n "version": 4,\n}' >"$SCRATCH/comma.anm"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/comma.anm"
expect_grep "comma.anm: line 3, column 1: expected a value after each comma, found a trailing comma" "$SCRATCH/err"
if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ]; then ok; else bad "a syntax error is not one line"; fi

finish
