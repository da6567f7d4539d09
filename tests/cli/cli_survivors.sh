# CLI behaviour that planted mutants changed unnoticed (docs/hardening.md, round three,
# "mutants"): verify's summary keeps files without hash rows apart from invalid ones (JSON,
# JUnit, the failed line), the largest -j accepted and the first refused, and recover -n with
# and without an OUT operand, for both formats.
. "$(dirname "$0")/common.sh"
S=$SCRATCH

# The 50-byte replay of docs/test-module.md section 11 (two empty steps, three hash rows),
# the same with a hash bit flipped, and without hash rows (flags 0, 26 bytes).
python3 - "$S" <<'PY'
import sys
d = sys.argv[1]
head = bytes.fromhex("4f53544d0100" "0100" "06000000" "02" "01" "01000000" "02000000")
rows = bytes.fromhex("748b19f78f50b97e" "abd9444c5a6a510d" "9b778817dfa2e24f")
steps = bytes.fromhex("00000000")
open(d + "/ok.ostm", "wb").write(head + rows + steps)
bad = bytearray(rows); bad[8] ^= 1
for k in (1, 2):
    open(d + "/mismatch%d.ostm" % k, "wb").write(head + bytes(bad) + steps)
nohash = head[:6] + b"\x00\x00" + head[8:]
for k in range(1, 5):
    open(d + "/nohash%d.ostm" % k, "wb").write(nohash + steps)
open(d + "/invalid1.ostm", "wb").write(b"not a replay\n")
open(d + "/invalid2.ostm", "wb").write(head + rows[:5])
open(d + "/invalid3.ostm", "wb").write(head + rows + steps + b"\x00")
PY
expect_exit 0 "$ONESCOPE" verify "$S/ok.ostm"
files=("$S/ok.ostm" "$S"/mismatch?.ostm "$S"/invalid?.ostm "$S"/nohash?.ostm)
[ ${#files[@]} = 10 ] && ok || bad "fixture: ${#files[@]} files"

# 1 ok, 2 mismatches, 3 invalid, 4 without hash rows: every count distinct, so a count taken
# from the wrong class shows.
expect_exit 1 "$ONESCOPE" verify --json --junit "$S/report.xml" "${files[@]}"
python3 - "$S/out" "$S/report.xml" <<'PY' && ok || bad "verify --json / --junit summary counts"
import json, sys
import xml.etree.ElementTree as ET
lines = [json.loads(l) for l in open(sys.argv[1])]
per, summary = lines[:-1], lines[-1]
want = {"ok": 1, "mismatch": 2, "invalid": 3, "no_hash_rows": 4}
got = {}
for o in per:
    got[o["status"]] = got.get(o["status"], 0) + 1
    kind = o["file"].rsplit("/", 1)[1].rstrip("0123456789.ostm") or "ok"
    assert {"ok": "ok", "mismatch": "mismatch", "invalid": "invalid",
            "nohash": "no_hash_rows"}[kind] == o["status"], o
assert got == want, got
assert summary["files"] == 10, summary
for k, v in want.items():
    assert summary[k] == v, (k, summary)
suites = ET.parse(sys.argv[2]).getroot()
for el in (suites, suites[0]):
    assert el.get("tests") == "10" and el.get("failures") == "2" and el.get("errors") == "7", el.attrib
PY
expect_grep "onescope verify: 9 of 10 files failed:" "$S/err"
[ "$(grep -c 'expected bit 0 set' "$S/out")" = 4 ] && ok || bad "the four files without hash rows not named as such"
# text mode prints the same verdicts
expect_exit 1 "$ONESCOPE" verify "${files[@]}"
[ "$(grep -c ': ok, 3 hash rows match' "$S/out")" = 1 ] && ok || bad "text: the ok file"

# -j: 256 is the most (more threads than files is fine), 257 and 0 are usage errors.
expect_exit 0 "$ONESCOPE" verify -j 256 "$S/ok.ostm" "$S/ok.ostm"
expect_exit 1 "$ONESCOPE" verify -j 256 "${files[@]}"
expect_grep "9 of 10 files failed" "$S/err"
for j in 257 0 1000; do
    expect_exit 2 "$ONESCOPE" verify -j $j "$S/ok.ostm"
    expect_grep "-j must be 1 to 256, not '$j'" "$S/err"
done

# recover -n, both formats: with OUT and without it (OUT is then PARTIAL less ".partial").
python3 - "$S/seed.ospc.partial" <<'PY'
import struct, sys
out = open(sys.argv[1], 'wb')
out.write(b'OSPC' + struct.pack('<HHBBHIIqd', 1, 0, 3, 0, 0, 1, 0xFFFFFFFF, 7, 0.0))
out.write(b'\x00\x00' * 6)
out.write(struct.pack('<QB3x3fH', 1, 0, 0.0, 0.0, 0.0, 0))
for f in range(3):
    out.write(struct.pack('<7f', f, 0, 0, 0, 0, 0, 1))
PY
cp "$SRC/tests/fuzz/corpus/ostm_recover/partial-2d" "$S/seed.ostm.partial"
for ext in ospc ostm; do
    p=$S/run.$ext.partial
    cp "$S/seed.$ext.partial" "$p"
    # without OUT: the derived name exists -> refused, left alone; absent -> written
    echo keep >"$S/run.$ext"
    expect_exit 1 "$ONESCOPE" recover -n "$p"
    expect_grep "run.$ext: exists, not replaced (--no-clobber" "$S/err"
    [ "$(cat "$S/run.$ext")" = keep ] && ok || bad "recover -n replaced the derived OUT ($ext)"
    cmp -s "$p" "$S/seed.$ext.partial" && ok || bad "recover -n changed the partial ($ext)"
    rm "$S/run.$ext"
    expect_exit 0 "$ONESCOPE" recover -n "$p"
    expect_exit 0 "$ONESCOPE" validate "$S/run.$ext"
    # and again: now it exists
    expect_exit 1 "$ONESCOPE" recover -n "$p"
    # with OUT: the same rule for the named file, the derived name not looked at
    echo keep >"$S/named.$ext"
    expect_exit 1 "$ONESCOPE" recover -n "$p" "$S/named.$ext"
    expect_grep "named.$ext: exists, not replaced (--no-clobber" "$S/err"
    [ "$(cat "$S/named.$ext")" = keep ] && ok || bad "recover -n replaced OUT ($ext)"
    rm "$S/named.$ext"
    expect_exit 0 "$ONESCOPE" recover -n "$p" "$S/named.$ext"
    expect_exit 0 "$ONESCOPE" validate "$S/named.$ext"
    cmp -s "$S/named.$ext" "$S/run.$ext" && ok || bad "OUT differs from the derived recovery ($ext)"
    # without -n both are replaced
    expect_exit 0 "$ONESCOPE" recover "$p"
    expect_exit 0 "$ONESCOPE" recover "$p" "$S/named.$ext"
done

# validate --max-errors: the "stopped at" note is for the OTS formats' error lists only; a
# cache or replay has one error, and nothing was cut.
head -c 100 "$S/run.ospc" >"$S/cut.ospc"
for f in "$S/cut.ospc" "$S/invalid2.ostm"; do
    expect_exit 1 "$ONESCOPE" validate --max-errors 1 "$f"
    grep -q "stopped at" "$S/err" && bad "validate --max-errors 1 $f: a note about more errors" || ok
done

# dump --poses: every column of every frame from frame 0, in the table and in CSV (a
# quaternion with four distinct components, so a shifted index shows).
python3 - "$S/q.ospc.partial" <<'PY'
import struct, sys
out = open(sys.argv[1], 'wb')
out.write(b'OSPC' + struct.pack('<HHBBHIIqd', 1, 0, 3, 0, 0, 1, 0xFFFFFFFF, 7, 1.0))
out.write(b'\x00\x00' * 6)
out.write(struct.pack('<QB3x3fH', 1, 0, 0.0, 0.0, 0.0, 0))
for f in range(3):
    out.write(struct.pack('<7f', 1.5 + f, 2.5, 3.5, 0.5, -0.5, 0.5, -0.5))
PY
expect_exit 0 "$ONESCOPE" -q recover "$S/q.ospc.partial"
expect_exit 0 "$ONESCOPE" dump --poses "$S/q.ospc"
[ "$(sed -n 2p "$S/out" | tr -s ' ')" = '0 7 1 "" yes 1.5 2.5 3.5 | 0.5 -0.5 0.5 -0.5' ] && ok ||
    bad "dump --poses: frame 0's row: $(sed -n 2p "$S/out")"
[ "$(grep -c ' yes ' "$S/out")" = 3 ] && ok || bad "dump --poses: not every frame"
expect_exit 0 "$ONESCOPE" dump --poses --csv "$S/q.ospc"
[ "$(sed -n 2p "$S/out")" = '0,7,1,"",1,1.5,2.5,3.5,0.5,-0.5,0.5,-0.5' ] && ok || bad "dump --poses --csv: frame 0"

# gen-testdata into a folder that exists already: written, exit 0
mkdir -p "$S/td"
expect_exit 0 "$ONESCOPE" gen-testdata -q "$S/td"
[ -n "$(ls "$S/td")" ] && ok || bad "gen-testdata into an existing folder wrote nothing"
# and into a new one: made with the usual mode (0777 less the umask), so it can be read
(umask 022 && "$ONESCOPE" gen-testdata -q "$S/td-new") && ok || bad "gen-testdata into a new folder"
[ "$(stat -c %a "$S/td-new")" = 755 ] && ok || bad "gen-testdata: new folder mode $(stat -c %a "$S/td-new"), not 755"

# convert of a clip whose frame range starts at frame 0: frame 0 is a valid first frame (it
# becomes the cache's start step 0), not refused as a negative one.
cat >"$S/zero.anm" <<'JSON'
{"format": "octo_anm", "version": 4, "source": "maya", "frame_range": [0, 2], "fps": 24.0,
 "coordinate_system": {"up": "y", "hand": "right", "unit": "meters", "rot_order": "xyz",
   "rot_repr_anim": "euler_deg", "rot_repr_rest": "quat_wxyz"},
 "pegs": [{"name": "root-P", "parent": null, "rest_pivot": [0, 0, 0], "rest_rotation": [1, 0, 0, 0],
   "keyframes": [
     {"frame": 0, "pos": [0, 0, 0], "rot_quat": [1, 0, 0, 0], "scl": [1, 1, 1], "interp": "LINEAR"},
     {"frame": 2, "pos": [2, 0, 0], "rot_quat": [1, 0, 0, 0], "scl": [1, 1, 1], "interp": "LINEAR"}]}],
 "cameras": []}
JSON
expect_exit 0 "$ONESCOPE" convert "$S/zero.anm" "$S/zero.ospc"
python3 - "$S/zero.ospc" <<'PY' && ok || bad "convert of frames 0..2: not 3 frames from step 0"
import struct, sys
b = open(sys.argv[1], "rb").read()
frames, start = struct.unpack_from("<Iq", b, 16)
assert (frames, start) == (3, 0), (frames, start)
PY

# names in the CLI's lines: a Latin-1 letter (U+00C0..U+00DF, lead byte 0xC3) is printable
# and kept as it is; a C1 control (U+0085) is escaped.
expect_exit 1 "$ONESCOPE" validate "$S/Àß.ospc"
expect_grep "Àß.ospc" "$S/err"
expect_exit 1 "$ONESCOPE" validate "$S/a$(printf '\302\205')b.ospc"
grep -q "a$(printf '\302\205')b" "$S/err" && bad "U+0085 in a name printed raw" || ok

# plot: a cache in metres is labelled in metres, a unitless one in units; one 3D input gets
# the wide layout (1400), a 2D one the narrow (1000).
python3 - "$S" <<'PY'
import struct, sys
for mpu, dims in ((0.0, 3), (1.0, 3)):
    out = open("%s/p%g.ospc.partial" % (sys.argv[1], mpu), 'wb')
    out.write(b'OSPC' + struct.pack('<HHBBHIIqd', 1, 0, dims, 0, 0, 1, 0xFFFFFFFF, 7, mpu))
    out.write(b'\x00\x00' * 6)
    out.write(struct.pack('<QB3x3fH', 1, 0, 0.0, 0.0, 0.0, 0))
    for f in range(30):
        out.write(struct.pack('<7f', f * 0.1, f * 0.05, 0, 0, 0, 0, 1))
PY
"$ONESCOPE" plot "$SRC/testdata/test-2d-600.ostm" -o "$S/probe.svg" >"$S/out" 2>"$S/err"
if grep -q "without cairo" "$S/err"; then
    echo "SKIPPED (the plot part only): built without cairo"
else
    for mpu in 0 1; do
        expect_exit 0 "$ONESCOPE" -q recover "$S/p$mpu.ospc.partial"
        expect_exit 0 "$ONESCOPE" plot "$S/p$mpu.ospc" -o "$S/p$mpu.svg"
        grep -q 'width="1400"' "$S/p$mpu.svg" && ok || bad "plot of one 3D cache: not the wide layout"
    done
    grep -q '>x (units)<' "$S/p0.svg" && ok || bad "plot of a unitless cache: axis not in units"
    grep -q '>x (m)<' "$S/p1.svg" && ok || bad "plot of a cache in metres: axis not in m"
    grep -q 'units' "$S/p1.svg" && bad "plot of a cache in metres says units" || ok
    grep -q 'width="1000"' "$S/probe.svg" && ok || bad "plot of a 2D replay: not the narrow layout"
    # a cache entity absent for frames 10..19: one spawn and one removal marker in each view
    # (2D one view, 3D two); and a replay's trajectories drawn at a cache's line width
    python3 - "$S" <<'PY'
import struct, sys
nan = struct.unpack('<f', b'\x00\x00\xc0\x7f')[0]
for dims in (2, 3):
    out = open("%s/gap%d.ospc" % (sys.argv[1], dims), 'wb')
    out.write(b'OSPC' + struct.pack('<HHBBHIIqd', 1, 0, dims, 0, 0, 1, 30, 0, 1.0))
    out.write(b'\x00\x00' * 6)
    out.write(struct.pack('<QB3x3fH', 1, 0, 0.0, 0.0, 0.0, 0))
    for f in range(30):
        x = nan if 10 <= f < 20 else f * 0.1
        out.write(struct.pack('<7f', x, f * 0.05, f * 0.02, 0, 0, 0, 1))
PY
    for dims in 2 3; do
        expect_exit 0 "$ONESCOPE" plot "$S/gap$dims.ospc" -o "$S/gap$dims.svg"
        views=$((dims - 1))
        [ "$(grep -c 'class="spawn"' "$S/gap$dims.svg")" = $views ] &&
            [ "$(grep -c 'class="removal"' "$S/gap$dims.svg")" = $views ] && ok ||
            bad "plot of a ${dims}D cache with a gap: not one spawn and one removal per view"
    done
    widths() { grep 'class="path"' "$1" | grep -o 'stroke-width="[^"]*"' | sort -u; }
    [ -n "$(widths "$S/gap2.svg")" ] && [ "$(widths "$S/probe.svg")" = "$(widths "$S/gap2.svg")" ] &&
        ok || bad "plot: replay trajectories $(widths "$S/probe.svg"), cache ones $(widths "$S/gap2.svg")"
fi
# convert of a cache named by a pipe (/dev/stdin): the same .anm as from the file (a peek at
# the magic through the pipe would eat the bytes the read then misses).
cp "$SRC/testdata/test-2d-ghost.ospc" "$S/ghost.ospc"
expect_exit 0 "$ONESCOPE" convert "$S/ghost.ospc" "$S/ghost.anm"
cat "$S/ghost.ospc" | "$ONESCOPE" convert /dev/stdin "$S/piped.anm" 2>"$S/err" && ok ||
    bad "convert from a pipe: $(cat "$S/err")"
cmp -s "$S/ghost.anm" "$S/piped.anm" && ok || bad "convert from a pipe: another .anm"

# convert of a cache file to an .anm file maps the cache and writes a peg at a time: under a
# 16 MiB data cap (a read-only mapping is not data) it converts a 28 MB cache that a whole
# read (standard input) holds twice over and fails. Poses at offset 80, so the cache maps.
python3 - "$S/still.ospc" <<'PY'
import struct, sys
n = 1000000
out = open(sys.argv[1], 'wb')
out.write(b'OSPC' + struct.pack('<HHBBHIIqd', 1, 0, 3, 0, 0, 1, n, 0, 1.0))
out.write(b'\x00\x00' * 6)
out.write(struct.pack('<QB3x3fH', 1, 0, 0.0, 0.0, 0.0, 2) + b'ab')
out.write(struct.pack('<7f', 1.0, 2.0, 3.0, 0, 0, 0, 1) * n)
PY
DCAP=16384
if (ulimit -d $DCAP && "$ONESCOPE" --version) >/dev/null 2>&1; then
    (ulimit -d $DCAP && "$ONESCOPE" convert "$S/still.ospc" "$S/still.anm") 2>"$S/err" && ok ||
        bad "convert of a cache file under ulimit -d $DCAP: $(cat "$S/err")"
    # the cap bites: the same bytes read whole do not fit
    (ulimit -d $DCAP && "$ONESCOPE" convert - "$S/whole.anm" <"$S/still.ospc") 2>/dev/null &&
        bad "convert from standard input fits under ulimit -d $DCAP" || ok
    expect_exit 0 "$ONESCOPE" convert - "$S/whole.anm" <"$S/still.ospc"
    cmp -s "$S/still.anm" "$S/whole.anm" && ok || bad "convert: the mapped and the read cache differ"
else
    echo "note: the binary cannot run under ulimit -d $DCAP; the convert memory check skipped"
fi
rm -f "$S/still.ospc"

# verify's diff command for a mismatch: a name of printable characters is one '...' word
# (a '"' included), $'...' only for one with a byte that would not show; pasted, each names
# the file.
q="$S/my \"odd\" file.ostm"
c="$S/bell$(printf '\a').ostm"
cp "$S/mismatch1.ostm" "$q"
cp "$S/mismatch1.ostm" "$c"
for f in "$q" "$c"; do
    expect_exit 1 "$ONESCOPE" verify "$f"
    word=$(sed -n 's/.*onescope diff -- \(.*\) THEIRS\.ostm .*/\1/p' "$S/out")
    eval "set -- $word"
    [ "$1" = "$f" ] && ok || bad "verify's diff command names another file: $word"
    if [ "$f" = "$q" ]; then
        [ "$word" = "'$q'" ] && ok || bad "verify: a printable name not in '...': $word"
    else
        [ "$word" = "\$'$S/bell\\x07.ostm'" ] && ok || bad "verify: a name with a control: $word"
    fi
done

# validate --max-errors of a keyframe whose "frame" (after "pos") is too large for a double:
# that one error; the key is there, so it is not also reported missing.
cat >"$S/order.anm" <<'JSON'
{"format": "octo_anm", "version": 4, "source": "maya", "frame_range": [0, 2], "fps": 24.0,
 "coordinate_system": {"up": "y", "hand": "right", "unit": "meters", "rot_order": "xyz",
   "rot_repr_anim": "euler_deg", "rot_repr_rest": "quat_wxyz"},
 "pegs": [{"name": "root-P", "parent": null, "rest_pivot": [0, 0, 0], "rest_rotation": [1, 0, 0, 0],
   "keyframes": [
     {"pos": [0, 0, 0], "frame": 1e999, "rot_quat": [1, 0, 0, 0], "scl": [1, 1, 1], "interp": "LINEAR"},
     {"frame": 2, "pos": [2, 0, 0], "rot_quat": [1, 0, 0, 0], "scl": [1, 1, 1], "interp": "LINEAR"}]}],
 "cameras": []}
JSON
expect_exit 1 "$ONESCOPE" validate --max-errors 10 "$S/order.anm"
expect_grep "keyframes\[0\].frame: expected a finite number, found 1e999" "$S/err"
[ "$(grep -c . "$S/err")" = 1 ] && ok || bad "validate: not one error for the bad frame: $(cat "$S/err")"

# validate --max-errors 1 of a rig with two cameras named alike and two bones named alike:
# the cameras' error, the note, and no second error past the limit (seed-2 survivor
# ots_read.c:697, the stop after the camera names removed).
cam='{"name": "cam", "peg": null, "is_default": true, "fov": 40, "fov_axis": "vertical", "override_fov": false, "near_plane": 0.1, "far_plane": 100, "near_field": 1, "far_field": 2, "angle": 0, "offset_x": 0, "offset_y": 0, "offset_z": 0, "pivot_x": 0, "pivot_y": 0}'
cat >"$S/twice.pvt" <<JSON
{"format": "octo_pvt", "version": 4, "source": "harmony", "name": "ship", "scale_factor": 2.0,
 "pivot_space": "local", "fps": 24.0,
 "coordinate_system": {"up": "y", "hand": "right", "unit": "meters", "rot_order": "xyz",
   "rot_repr_anim": "euler_deg", "rot_repr_rest": "quat_wxyz"},
 "bones": [{"name": "hip", "parent": null, "pivot": [0, 2, 0], "rotation": [1, 0, 0, 0]},
           {"name": "hip", "parent": null, "pivot": [0, 1, 0], "rotation": [1, 0, 0, 0]}],
 "cameras": [$cam, $cam]}
JSON
expect_exit 1 "$ONESCOPE" validate --max-errors 1 "$S/twice.pvt"
expect_grep "cameras\[1\].name: expected a camera name used once" "$S/err"
expect_grep "stopped at 1 error (--max-errors)" "$S/err"
[ "$(grep -c . "$S/err")" = 2 ] && ok || bad "validate --max-errors 1: more than one error: $(cat "$S/err")"

# dump of a replay: one line per body of the start world and one per step with input, the
# last step included, nothing past it (2 bodies; steps 1 and 2 of 3 set the gravity).
python3 - "$S/g3.ostm" <<'PY'
import sys
head = bytes.fromhex("4f53544d0100" "0000" "06000000" "02" "02" "01000000" "03000000")
steps = bytes.fromhex("0000" "0500" "0407000000" "0500" "0409000000")
open(sys.argv[1], "wb").write(head + steps)
PY
expect_exit 0 "$ONESCOPE" dump "$S/g3.ostm"
expect_grep "start world      gravity 10, 2 bodies" "$S/out"
[ "$(grep -c '^  body [0-9]' "$S/out")" = 2 ] && ok || bad "dump: not one line per body"
[ "$(grep '^  step ' "$S/out" | tr -s ' ')" = "$(printf ' step 1 gravity 7\n step 2 gravity 9')" ] &&
    ok || bad "dump: the steps with input: $(grep '^  step ' "$S/out")"

# validate of a live stream file (streamed through the live decoder to its end)
"$ONESCOPE" live serve --steps 5 >"$S/l.osls"
expect_exit 0 "$ONESCOPE" validate "$S/l.osls"
expect_grep "l.osls: valid osls" "$S/out"

# diff of a module recording with a v1 replay, in either order: a usage error naming the rule
# (seed-3 survivor cmd_diff.c:524: either file's being a recording made both)
python3 - "$S/m.ostm" <<'PY'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 1, 2) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([2, 2, 1, 0, 0, 0]) + struct.pack("<Q", 1)
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<IQ", 0, 2 + i) for i in range(2)))
PY
expect_exit 2 "$ONESCOPE" diff "$S/m.ostm" "$S/ok.ostm"
expect_grep "a module recording (OSTM v2) is diffed with another one" "$S/err"
expect_exit 2 "$ONESCOPE" diff "$S/ok.ostm" "$S/m.ostm"
expect_grep "a module recording (OSTM v2) is diffed with another one" "$S/err"

# live serve --replay R --steps N with N below the replay's count serves N steps, and without
# --steps all of them (seed-3 survivor cmd_live.c:138: the replay's count always won)
"$ONESCOPE" live serve --replay "$SRC/testdata/test-2d-600.ostm" --steps 7 >"$S/seven.osls"
expect_exit 0 "$ONESCOPE" live attach --json <"$S/seven.osls"
[ "$(grep -c '"step"' "$S/out")" = 8 ] && ok || bad "live serve --steps 7: $(grep -c '"step"' "$S/out") rows, not the start and 7 steps"
"$ONESCOPE" live serve --replay "$SRC/testdata/test-2d-600.ostm" >"$S/all.osls"
expect_exit 0 "$ONESCOPE" live attach <"$S/all.osls"
expect_grep "600 steps checked, every hash matched" "$S/err"

# plot --from the last host step an input holds still draws it (seed-4 survivor cmd_plot.c:351:
# an input ending at --from was refused), and one past it is refused
expect_exit 0 "$ONESCOPE" plot "$SRC/testdata/test-2d-600.ostm" --from 600 -o "$S/p600.svg"
[ -s "$S/p600.svg" ] && ok || bad "plot --from 600: no picture"
expect_exit 1 "$ONESCOPE" plot "$SRC/testdata/test-2d-600.ostm" --from 601 -o "$S/p601.svg"
expect_grep "holds host steps 0 to 600, none in --from/--to" "$S/err"

# a command without operands says so when given one
expect_exit 2 "$ONESCOPE" live attach extra
expect_grep "takes no operand, not 1 operand" "$S/err"
finish
