#!/usr/bin/env bash
# The springs example end to end, as a user would run it: the library installed into a scratch
# prefix, the example built against the installed package, a run recorded by the engine, then
# the installed CLI verifying, dumping and recovering it with the engine as a plug-in.
#   run.sh BUILD_DIR PREFIX CC
set -euo pipefail
build=$1 prefix=$2 cc=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$prefix" && mkdir -p "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
export LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64"
b=$prefix/springs-build
cmake -S "$here" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$b" >/dev/null
os=$prefix/bin/onescope
plugin=$b/libsprings_module.so
w=$prefix/work && mkdir -p "$w" && cd "$w"
checks=0
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
ok() { checks=$((checks + 1)); }
# expect CODE CMD...: runs CMD, keeps stdout in out.txt and stderr in err.txt, checks the exit
expect() {
    local want=$1 got=0
    shift
    "$@" >out.txt 2>err.txt || got=$?
    [ "$got" -eq "$want" ] || fail "exit $got, not $want: $* (stderr: $(cat err.txt))"
}

"$b/springs_record" run.ostm 600 64 >/dev/null
expect 0 "$os" --module "$plugin" verify run.ostm
grep -q "run.ostm: ok, 601 hash rows match" out.txt || fail "verify: $(cat out.txt)"; ok
# the option also after the command's name
expect 0 "$os" verify --module "$plugin" -q run.ostm; ok

# the planted divergence: particle 5's spring stiffer from step 250, so the world after step 250
# (row 251) is the first that differs, and step 250's input is shown as the module tells it
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify run.ostm
grep -q "hash row 251 (the world after step 250)" err.txt || fail "planted: $(cat err.txt)"
grep -q "^onescope verify: 1 of 1 files failed: run.ostm$" err.txt && [ "$(wc -l <err.txt)" -eq 2 ] ||
    fail "planted: not the file's line and the summary: $(cat err.txt)"
grep -q "step 250 ran: impulse particle 25 " out.txt || fail "planted: $(cat out.txt)"; ok
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify --json run.ostm
python3 -c 'import json,sys; d=[json.loads(l) for l in open("out.txt")]; assert d[0]["status"]=="mismatch" and d[0]["row"]==251, d' ||
    fail "verify --json: $(cat out.txt)"; ok

# without the module: refused, naming the file's module and the ones there are; never "ok"
expect 1 "$os" verify run.ostm
grep -q "run.ostm: offset 12: module: expected a module loaded with --module PATH for example.springs 1, found only onescope.test 1" err.txt ||
    fail "no module: $(cat err.txt)"
! grep -q "ok" out.txt || fail "no module said ok"; ok

# validate says whether the module checked the blobs; dump names the module
expect 0 "$os" validate run.ostm
grep -q "valid ostm2 (the container only: module example.springs 1 not loaded" out.txt || fail "$(cat out.txt)"
expect 0 "$os" --module "$plugin" validate run.ostm
grep -q "valid ostm2 (module example.springs 1: its setup and inputs checked)" out.txt || fail "$(cat out.txt)"; ok
expect 0 "$os" --module "$plugin" dump run.ostm
grep -q "module           example.springs 1" out.txt || fail "dump: $(cat out.txt)"
grep -q "step 0        impulse particle 0 (-3, 4)" out.txt || fail "dump steps: $(cat out.txt)"; ok
expect 0 "$os" dump --json run.ostm
python3 -c 'import json; d=json.load(open("out.txt")); assert d["module"]=="example.springs" and d["step_count"]==600, d' ||
    fail "dump --json: $(cat out.txt)"; ok
expect 0 "$os" rewrite run.ostm again.ostm
cmp -s run.ostm again.ostm || fail "rewrite changed the bytes"; ok

# another version of the module in the file: refused naming both
python3 - <<'PY'
b = bytearray(open("run.ostm", "rb").read())
assert b[13:28] == b"example.springs" and b[29:30] == b"1"
b[29] = ord("2")
open("v2.ostm", "wb").write(bytes(b))
PY
expect 1 "$os" --module "$plugin" verify v2.ostm
grep -q "found example.springs 2, loaded example.springs 1" err.txt || fail "version: $(cat err.txt)"; ok
# an input the module refuses, at its file offset: step 0's impulse names particle 9999
python3 - <<'PY'
import struct
b = bytearray(open("run.ostm", "rb").read())
head = 12 + 1 + 15 + 1 + 1 + 4 + 8 + 8   # ids, setup blob, row 0
assert struct.unpack_from("<I", b, head)[0] == 12
struct.pack_into("<I", b, head + 4, 9999)
open("bad.ostm", "wb").write(bytes(b))
print(head + 4)
PY
expect 1 "$os" --module "$plugin" validate bad.ostm
grep -q "bad.ostm: offset 54: step 0 input: impulse: expected an entity below the count" err.txt ||
    fail "bad input: $(cat err.txt)"; ok

# a recording killed after 100 steps: recover keeps every step, and it verifies
expect 3 "$b/springs_record" --kill-after 100 killed.ostm 600 64
[ -f killed.ostm.partial ] && [ ! -e killed.ostm ] || fail "no partial after the kill"
expect 0 "$os" recover killed.ostm.partial
grep -q "kept 100 complete steps" out.txt || fail "recover: $(cat out.txt)"
expect 0 "$os" --module "$plugin" verify killed.ostm; ok
# a torn last record is dropped and said
expect 3 "$b/springs_record" --kill-after 40 torn.ostm 600 64
size=$(stat -c %s torn.ostm.partial)
truncate -s $((size - 3)) torn.ostm.partial
expect 0 "$os" recover torn.ostm.partial
grep -q "kept 39 complete steps" out.txt && grep -q "dropped a torn last record of" out.txt ||
    fail "torn: $(cat out.txt)"; ok

# diff explains the plant from the recordings alone: a run whose setup plants particle 5's
# stiffer spring from step 250, against the clean run; both go through the plug-in in one process
"$b/springs_record" --plant 250:5 planted.ostm 600 64 >/dev/null
expect 0 "$os" --module "$plugin" verify -q planted.ostm # the plant is the setup's: reproduced
expect 0 "$os" --module "$plugin" diff run.ostm run.ostm
grep -q "run.ostm and run.ostm: same" out.txt || fail "diff same: $(cat out.txt)"; ok
expect 1 "$os" --module "$plugin" diff run.ostm planted.ostm
grep -q "^setup: differs$" out.txt &&
    grep -q "^first difference: row 251 (the world after step 250)" out.txt &&
    grep -q "^stage: integrate (2 of 3)$" out.txt &&
    grep -Eq "^entity 5 \(id 5\) position.y \(m\): -?[0-9.e-]+ and -?[0-9.e-]+(, [0-9]+ ulps?)?; [0-9]+ entit(y|ies) differ" out.txt ||
    fail "diff planted: $(cat out.txt)"; ok
expect 1 "$os" --module "$plugin" diff --json run.ostm planted.ostm
python3 -c '
import json; d = json.load(open("out.txt"))
f = d["first"]
assert d["kind"] == "recordings" and d["status"] == "different" and d["module"] == "example.springs", d
assert f["row"] == 251 and f["step"] == 250 and f["stage"]["name"] == "integrate", f
assert f["value"]["entity"] == 5 and f["value"]["name"] == "position.y" and f["value"]["a"] != f["value"]["b"], f
' || fail "diff --json: $(cat out.txt)"; ok
expect 1 "$os" diff run.ostm planted.ostm
grep -q "module: expected a module loaded with --module PATH for example.springs 1" err.txt ||
    fail "diff without the module: $(cat err.txt)"; ok

# live: the recording served as a version-2 stream (it names example.springs 1) and followed by
# attach with the plug-in; every row attach prints is the recording's hash row at that step
"$os" --module "$plugin" live serve run.ostm --probe-every 100 >run.osls
expect 0 "$os" --module "$plugin" live attach <run.osls
[ "$(wc -l <out.txt)" -eq 601 ] || fail "live attach: $(wc -l <out.txt) rows, not 601"
python3 - <<'PY' || fail "live rows differ from the recording's hash rows"
import struct
b = open("run.ostm", "rb").read()
a = b[12]; v = b[13 + a]; h = 14 + a + v
s = struct.unpack_from("<I", b, h)[0]; pos = h + 4 + s
rows = [struct.unpack_from("<Q", b, pos)[0]]; pos += 8
while pos < len(b):
    n = struct.unpack_from("<I", b, pos)[0]; pos += 4 + n
    rows.append(struct.unpack_from("<Q", b, pos)[0]); pos += 8
got = [l.split() for l in open("out.txt")]
assert len(got) == len(rows) == 601, (len(got), len(rows))
for i, (w, r) in enumerate(zip(got, rows)):
    assert w == ["step", str(i), "hash", "%016x" % r], (i, w, "%016x" % r)
PY
ok
# through a pipe, attaching late (a probe's snapshot restores the world), saving a v2 recording
"$os" --module "$plugin" live serve run.ostm | "$os" --module "$plugin" live attach -q --from 250 --save late.ostm ||
    fail "live pipe"
expect 0 "$os" --module "$plugin" verify late.ostm
grep -q "late.ostm: ok, 301 hash rows match" out.txt || fail "late save: $(cat out.txt)"; ok
# the planted divergence, in the viewer's module only: reported at the step it changes (a
# stream with the first probe only: the plant lives in the world's bytes, so a later probe's
# snapshot comparison would report it before its step, at the probe)
"$os" --module "$plugin" live serve run.ostm --probe-every 0 >once.osls
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" live attach <once.osls
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "<stdin>: offset [0-9]*: hash at step 251: expected [0-9a-f]* (the host's), found [0-9a-f]* (the viewer's)$" err.txt ||
    fail "live planted: $(cat err.txt)"
[ "$(wc -l <out.txt)" -eq 251 ] && tail -n 1 out.txt | grep -q "^step 250 hash" ||
    fail "live planted rows: $(tail -n 2 out.txt)"; ok
# a stream for another module: refused naming both, without the plug-in and with another version
expect 1 "$os" live attach <run.osls
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "<stdin>: offset 8: module: expected the module the viewer runs, found example.springs 1, loaded onescope.test 1" err.txt ||
    fail "live without the module: $(cat err.txt)"; ok
python3 - <<'PY'
b = bytearray(open("run.osls", "rb").read())
assert b[8] == 15 and b[9:24] == b"example.springs" and b[24:26] == b"\x011"
b[25] = ord("2")
open("v2.osls", "wb").write(bytes(b))
PY
expect 1 "$os" --module "$plugin" live attach <v2.osls
grep -q "<stdin>: offset 8: module: expected the module the viewer runs, found example.springs 2, loaded example.springs 1" err.txt ||
    fail "live version: $(cat err.txt)"; ok
expect 1 "$os" --module "$plugin" live serve v2.ostm
grep -q "found example.springs 2, loaded example.springs 1" err.txt || fail "serve version: $(cat err.txt)"; ok
expect 0 "$os" validate run.osls
expect 0 "$os" dump --json run.osls
python3 -c 'import json; d=json.load(open("out.txt")); assert d["version"]==2 and d["module"]=="example.springs" and d["step_count"]==600, d' ||
    fail "dump osls: $(cat out.txt)"
expect 0 "$os" rewrite run.osls again.osls
cmp -s run.osls again.osls || fail "rewrite changed the stream"; ok

# the engine's own CLI (onescope_cli_main): the same commands with the module linked in, no
# --module; the archive it links exports onescope_cli_main alone (the CLI's names stay inside)
[ -x "$b/springs_cli" ] || fail "springs_cli was not built: the package has no onescope::cli"
expect 0 "$b/springs_cli" verify run.ostm
grep -q "run.ostm: ok, 601 hash rows match" out.txt || fail "springs_cli verify: $(cat out.txt)"; ok
expect 1 "$b/springs_cli" diff run.ostm planted.ostm
grep -q "^stage: integrate (2 of 3)$" out.txt || fail "springs_cli diff: $(cat out.txt)"; ok
expect 0 "$b/springs_cli" verify "$prefix/work/run.ostm" -q; ok
expect 2 "$b/springs_cli" nosuchcommand
grep -q "unknown command 'nosuchcommand'" err.txt || fail "springs_cli usage: $(cat err.txt)"; ok
globals=$(nm -g --defined-only "$prefix"/lib*/libonescope_cli.a | awk 'NF == 3 {print $3}')
[ "$globals" = "onescope_cli_main" ] || fail "libonescope_cli.a exports: $globals"; ok

# the run as a pose cache through the seam: 64 point entities in metres, 2D, frames 100..149
expect 0 "$os" --module "$plugin" ghost run.ostm g.ospc --from 100 --frames 50 --offset 2,0,0
grep -q "g.ospc: 64 entities, 50 frames from step 100" err.txt || fail "ghost: $(cat err.txt)"
expect 0 "$os" dump --json g.ospc
python3 - <<'PY' || fail "ghost dump: $(cat out.txt)"
import json
d = json.load(open("out.txt"))
assert d["entity_count"] == 64 and d["frame_count"] == 50 and d["start_step"] == 100, d
assert d["dimensions"] == 2 and d["metres_per_unit"] == 1.0 and d["unit_name"] == "m", d
assert d["module_id"] == "example.springs", d
PY
ok
# diff of the run against its ghost: the ghost over the cache's steps, ids as the ghost gives
# them; the same once --offset undoes the ghost's, 2 m apart without; the planted run against
# a ghost of the clean one past step 250 differs from the first frame on
expect 1 "$os" --module "$plugin" diff run.ostm g.ospc
grep -q "^run.ostm and g.ospc: different$" out.txt && grep -q "^entity 64: max 2 m at step 100" out.txt ||
    fail "diff run.ostm g.ospc: $(tail -3 out.txt)"; ok
expect 0 "$os" --module "$plugin" diff --offset 2,0,0 run.ostm g.ospc
grep -q "^run.ostm and g.ospc: same$" out.txt && [ "$(grep -c '^entity [0-9]*: max 0 m' out.txt)" -eq 64 ] ||
    fail "diff --offset run.ostm g.ospc: $(tail -3 out.txt)"; ok
expect 0 "$os" -q --module "$plugin" ghost run.ostm late.ospc --from 300 --frames 50
expect 1 "$os" --module "$plugin" diff --json planted.ostm late.ospc
python3 -c '
import json; d = json.load(open("out.txt"))
assert d["kind"] == "recording_cache" and d["status"] == "different", d["kind"]
assert d["overlap_frames"] == 50 and d["steps_a"] == [300, 349], d["steps_a"]
' || fail "diff --json planted.ostm late.ospc: $(head -c 300 out.txt)"; ok
expect 2 "$os" --module "$plugin" diff g.ospc run.ostm
grep -q "a module recording and a pose cache go in that order: RUN.ostm CACHE.ospc" err.txt ||
    fail "diff CACHE RUN: $(cat err.txt)"; ok
expect 1 "$os" diff run.ostm g.ospc
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "run.ostm: offset 12: module: expected a module loaded with --module PATH" err.txt ||
    fail "diff run.ostm g.ospc without the module: $(cat err.txt)"; ok
expect 1 "$os" ghost run.ostm g2.ospc --from 0 --frames 1
grep -q "run.ostm: offset 12: module: expected a module loaded with --module PATH for example.springs 1" err.txt &&
    [ ! -e g2.ospc ] || fail "ghost without the module: $(cat err.txt)"; ok

# replay runs a recording through the plug-in: one hash line per row, the recorded ones (verify's
# rows); the planted world's rows differ from row 251 on; --state prints each entity
expect 0 "$os" --module "$plugin" replay run.ostm
[ "$(grep -c '^step [0-9]* hash [0-9a-f]\{16\}$' out.txt)" -eq 601 ] || fail "replay: $(head -3 out.txt)"; ok
SPRINGS_PLANT=250:5 expect 0 "$os" --module "$plugin" replay run.ostm
[ "$(grep -m1 MISMATCH out.txt | cut -d' ' -f2)" = 251 ] && [ "$(grep -c MISMATCH out.txt)" -eq 350 ] ||
    fail "replay of the plant: $(grep -m1 MISMATCH out.txt)"; ok
expect 0 "$os" --module "$plugin" replay --json --state run.ostm
python3 -c '
import json; d = json.load(open("out.txt"))
assert d["step_count"] == 600 and d["start_step"] == 0 and d["mismatches"] == 0, d["step_count"]
r = d["rows"]
assert len(r) == 601 and all(x["match"] for x in r) and r[600]["index"] == 600, len(r)
e = r[0]["entities"]
assert len(e) == 64 and [x["id"] for x in e] == list(range(64)) and e[5]["present"], e[:2]
assert len(e[5]["position"]) == 3 and e[5]["position"][2] == 0, e[5]
' || fail "replay --json --state: see above"; ok
expect 1 "$os" replay run.ostm
[ "$(wc -l <err.txt)" -eq 1 ] && [ ! -s out.txt ] &&
    grep -q "run.ostm: offset 12: module: expected a module loaded with --module PATH for example.springs 1" err.txt ||
    fail "replay without the module: $(cat err.txt)"; ok
SPRINGS_BARE=1 expect 1 "$os" --module "$plugin" replay --state run.ostm
[ "$(wc -l <err.txt)" -eq 1 ] && [ ! -s out.txt ] &&
    grep -q "run.ostm: --state: expected a module with entities (entity_count, entity_id, entity_pose), found module 'example.springs' has no entities" err.txt ||
    fail "replay --state without entities: $(cat err.txt)"; ok
SPRINGS_BARE=1 expect 0 "$os" --module "$plugin" replay -q run.ostm; ok # hashes need no entities
SPRINGS_BARE=1 expect 1 "$os" --module "$plugin" ghost run.ostm bare.ospc --from 0 --frames 2
[ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e bare.ospc ] && grep -q "has none" err.txt ||
    fail "ghost without entities: $(cat err.txt)"; ok

# the commands that take no recording say so in one line naming it, and write nothing
expect 1 "$os" --module "$plugin" convert run.ostm c.ospc
[ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e c.ospc ] && grep -q "^run.ostm: not an .anm clip or an .ospc pose cache" err.txt ||
    fail "convert of a recording: $(cat err.txt)"; ok
expect 1 "$os" --module "$plugin" dump --poses run.ostm
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q '^run.ostm: offset 0: magic: expected "OSPC"' err.txt ||
    fail "dump --poses of a recording: $(cat err.txt)"; ok
expect 1 "$os" --module "$plugin" box3d-dump run.ostm b.ospc --steps 3
[ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e b.ospc ] && grep -Eq "^run.ostm: line 1, column 1: expected a JSON document|no Box3D" err.txt ||
    fail "box3d-dump of a recording: $(cat err.txt)"; ok

# plot draws the run through the plug-in: 64 entities in metres, one x-y view (2D), one line
# per entity coloured by its id, entity k's line starting at its pose at row 0 (from the ghost)
"$os" plot --help | grep -q "module recording" || fail "plot --help does not mention module recordings"
have_plot=1
"$os" --module "$plugin" plot run.ostm -o probe.svg >/dev/null 2>err.txt || true
if grep -q "no plot support" err.txt; then
    echo "SKIPPED: plot checks (this build has no cairo)"
    have_plot=0
fi
svg_ok() { # FILE: well-formed XML, and rendered when rsvg-convert is there
    if command -v xmllint >/dev/null; then
        xmllint --noout "$1" || fail "$1 is not well-formed XML"
    else
        echo "SKIPPED: xmllint missing, $1 not parsed by it"
    fi
    if command -v rsvg-convert >/dev/null; then
        rsvg-convert "$1" -o "$1.png" && [ -s "$1.png" ] || fail "rsvg-convert $1"
    else
        echo "SKIPPED: rsvg-convert missing, $1 not rendered"
    fi
}
if [ "$have_plot" -eq 1 ]; then
    expect 0 "$os" --module "$plugin" plot run.ostm -o p.svg
    [ ! -s err.txt ] || fail "plot said: $(cat err.txt)"
    svg_ok p.svg
    expect 0 "$os" -q --module "$plugin" ghost run.ostm all.ospc --from 0 --frames 601
    expect 0 "$os" dump all.ospc --poses --csv --frames 0:0
    cat >paths_check.py <<'EOF'
import csv, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
PAL = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
       "#bcbd22", "#17becf", "#003f5c", "#b8860b"]
root = ET.parse(sys.argv[1]).getroot()
panels = {g.get("data-name"): g for g in root.iter(NS + "g") if g.get("class") == "panel"}
assert list(panels) == ["x-y"], panels.keys()
p = {k: float(panels["x-y"].get("data-" + k)) for k in ("sx", "sy", "ox", "oy")}
lines = [l for l in root.iter(NS + "polyline") if l.get("class") == "path"]
assert len(lines) == 64, "%d entity paths, not 64" % len(lines)
labels = [t.text for t in root.iter(NS + "text") if t.get("class") == "axis-label"]
assert "x (m)" in labels and "y (m)" in labels, labels
legend = [t.text for t in root.iter(NS + "text") if t.get("class") == "legend"]
assert "run.ostm" in legend, legend
firsts = [(l.get("stroke"), [float(v) for v in l.get("points").split()[0].split(",")]) for l in lines]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 64, len(rows)
for row in rows:
    e = int(row["entity"]) - 1  # the ghost's cache id k + 1 is the module's id k
    x = p["ox"] + p["sx"] * float(row["x"])
    y = p["oy"] + p["sy"] * float(row["y"])
    if not any(c == PAL[e % 12] and abs(q[0] - x) < 0.2 and abs(q[1] - y) < 0.2 for c, q in firsts):
        raise SystemExit("entity %d: no %s line starts at (%.1f, %.1f)" % (e, PAL[e % 12], x, y))
EOF
    python3 paths_check.py p.svg out.txt || fail "plot of run.ostm: see above"
    ok
    # --from/--to: the lines start at row 100's poses
    expect 0 "$os" --module "$plugin" plot run.ostm --from 100 --to 200 -o range.svg
    svg_ok range.svg
    expect 0 "$os" dump all.ospc --poses --csv --frames 100:100
    python3 paths_check.py range.svg out.txt || fail "plot --from 100 --to 200: see above"; ok
    # a long run is simplified as a replay is: said on stderr and in the legend, the SVG small
    "$b/springs_record" long.ostm 40000 4 >/dev/null
    expect 0 "$os" --module "$plugin" plot long.ostm -o long.svg
    svg_ok long.svg
    grep -q "long.svg: simplified: 4 lines kept only their extremes per pixel column" err.txt &&
        grep -q 'class="note"[^>]*>simplified (4 lines)<' long.svg &&
        [ "$(stat -c %s long.svg)" -lt 400000 ] || fail "long run: $(cat err.txt), $(stat -c %s long.svg) bytes"; ok
    # the ghost over its run: both named, on the same axes
    expect 0 "$os" --module "$plugin" plot run.ostm all.ospc -o over.svg
    svg_ok over.svg
    [ "$(grep -c 'class="path"' over.svg)" -eq 128 ] || fail "overlay: not 128 paths"; ok

    # --diff of the clean and the planted run: 0 m up to step 250 (the worlds are equal through
    # row 250), then apart; the ghost's ids pair the entities
    expect 0 "$os" --module "$plugin" plot --diff run.ostm planted.ostm -o d.svg
    svg_ok d.svg
    cat >diff_check.py <<'EOF'
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
g = [g for g in root.iter(NS + "g") if g.get("class") == "panel" and g.get("data-name") == "diff"][0]
p = {k: float(g.get("data-" + k)) for k in ("sx", "sy", "ox", "oy")}
pts = []
for l in root.iter(NS + "polyline"):
    if l.get("class") == "path":
        for q in l.get("points").split():
            x, y = (float(v) for v in q.split(","))
            pts.append(((x - p["ox"]) / p["sx"], (y - p["oy"]) / p["sy"]))
last = float(sys.argv[3])  # the steps drawn are 0..last
assert pts and min(x for x, _ in pts) < 1 and max(x for x, _ in pts) > last - 1, "steps %s" % pts[:3]
apart = float(sys.argv[2])  # the first step that may differ; past the end: never
early = [d for s, d in pts if s < apart - 0.5]
late = [d for s, d in pts if s > apart + 1.5]
assert early and max(early) < 0.002, "apart before step %g: %g" % (apart, max(early))
assert not late or max(late) > 0.5, "not apart after step %g: %g" % (apart, max(late))
EOF
    python3 diff_check.py d.svg 250 600 || fail "plot --diff: see above"; ok
    # a recording against its own ghost: 0 at every step
    expect 0 "$os" --module "$plugin" plot --diff run.ostm all.ospc -o dg.svg
    svg_ok dg.svg
    python3 diff_check.py dg.svg 9999 600 || fail "plot --diff against the ghost: see above"; ok

    # the refusals: one line each, no OUT
    expect 1 "$os" plot run.ostm -o no.svg
    [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e no.svg ] &&
        grep -q "run.ostm: offset 12: module: expected a module loaded with --module PATH for example.springs 1" err.txt ||
        fail "plot without the module: $(cat err.txt)"; ok
    expect 1 "$os" --module "$plugin" plot run.ostm --field density --step 3 -o no.svg
    [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e no.svg ] &&
        grep -q "run.ostm: --field: expected a test-module replay (OSTM v1" err.txt ||
        fail "plot --field of a recording: $(cat err.txt)"; ok
    SPRINGS_BARE=1 expect 1 "$os" --module "$plugin" plot run.ostm -o no.svg
    [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e no.svg ] &&
        grep -q "run.ostm: module: expected a module with entities (entity_count, entity_id, entity_pose) to plot, found module 'example.springs' has no entities" err.txt ||
        fail "plot of a module without entities: $(cat err.txt)"; ok
    SPRINGS_BARE=1 expect 1 "$os" --module "$plugin" plot --diff run.ostm planted.ostm -o no.svg
    [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e no.svg ] && grep -q "has no entities" err.txt ||
        fail "plot --diff of a module without entities: $(cat err.txt)"; ok
    expect 1 "$os" --module "$plugin" plot run.ostm --from 700 -o no.svg
    [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e no.svg ] &&
        grep -q "run.ostm: holds host steps 0 to 600, none in --from/--to" err.txt ||
        fail "plot --from past the end: $(cat err.txt)"; ok
    expect 1 "$os" --module "$plugin" plot bad.ostm -o no.svg
    [ "$(wc -l <err.txt)" -eq 1 ] && [ ! -e no.svg ] && grep -q "bad.ostm: offset 54: step 0 input" err.txt ||
        fail "plot of a recording the module refuses: $(cat err.txt)"; ok
    # a name with an escape byte comes back escaped
    escname=$(printf 'run\033.ostm')
    cp run.ostm "$escname"
    SPRINGS_BARE=1 expect 1 "$os" --module "$plugin" plot "$escname" -o no.svg
    [ "$(wc -l <err.txt)" -eq 1 ] && ! grep -q "$(printf '\033')" err.txt && grep -qF 'run\x1B.ostm' err.txt ||
        fail "escaped name: $(cat -v err.txt)"; ok
fi

# the test module's own module recording, beside a v1 replay of the same steps: plot draws the
# recording in 3D (the test module's table does not say 2D) as a top and a side view with the
# spawn and the removal marked, and --diff of the two is 0 mm at every step (the same ids)
cat >tm_record.c <<'EOF'
#include <stdio.h>
#include "onescope/onescope.h"
int main(int argc, char **argv) {
    const onescope_sim_setup setup = {3, 6, 7};
    uint8_t blob[6], in[16];
    onescope_sim_setup_encode(&setup, blob);
    onescope_recording_def def = onescope_recording_def_default();
    def.module = onescope_module_test();
    def.setup = blob;
    def.setup_size = sizeof blob;
    onescope_recording_writer *w = NULL;
    onescope_replay *r = NULL;
    onescope_error e;
    onescope_code rc = argc == 3 ? onescope_recording_writer_open(argv[1], &def, NULL, NULL, &w, &e)
                                 : ONESCOPE_E_ARGUMENT;
    if (rc == ONESCOPE_OK) rc = onescope_replay_create(&setup, NULL, NULL, &r, &e);
    for (uint32_t i = 0; i < 200 && rc == ONESCOPE_OK; i++) {
        onescope_op op = {0, 0, {0, 0, 0}};
        if (i == 40) op = (onescope_op){ONESCOPE_OP_SPAWN, 0, {5000, 8000, 2000}};
        if (i == 120) op = (onescope_op){ONESCOPE_OP_REMOVE, 1, {0, 0, 0}};
        size_t n = op.code ? onescope_op_encode(3, &op, in, sizeof in, &e) : 0;
        rc = onescope_recording_writer_append(w, in, n, NULL, &e);
        if (rc == ONESCOPE_OK) rc = onescope_replay_append_step(r, in, n, &e);
    }
    if (rc == ONESCOPE_OK) rc = onescope_recording_writer_close(w, NULL, &e);
    if (rc == ONESCOPE_OK) rc = onescope_replay_write_file(r, argv[2], &e);
    onescope_recording_writer_free(w);
    onescope_replay_free(r);
    char line[512];
    if (rc != ONESCOPE_OK) onescope_error_format(&e, line, sizeof line);
    if (rc != ONESCOPE_OK) fprintf(stderr, "tm_record: %s\n", line);
    return rc != ONESCOPE_OK;
}
EOF
"$cc" -std=c17 -Wall -Werror -I"$prefix/include" tm_record.c -L"$prefix/lib" -L"$prefix/lib64" -lonescope -o tm_record
./tm_record tm2.ostm tm1.ostm || fail "tm_record"
expect 0 "$os" validate tm2.ostm tm1.ostm
grep -q "tm2.ostm: valid ostm2" out.txt && grep -q "tm1.ostm: valid ostm" out.txt || fail "tm files: $(cat out.txt)"; ok
if [ "$have_plot" -eq 1 ]; then
    expect 0 "$os" plot tm2.ostm -o tm.svg
    svg_ok tm.svg
    python3 - tm.svg <<'EOF' || fail "plot of the test module's recording: see above"
import sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
names = [g.get("data-name") for g in root.iter(NS + "g") if g.get("class") == "panel"]
assert names == ["top x-z", "side x-y"], names
lines = [l for l in root.iter(NS + "polyline") if l.get("class") == "path"]
assert len(lines) == 14, "%d paths, not 7 bodies x 2 views" % len(lines)
kinds = {}
for e in root.iter():
    if e.get("class") in ("spawn", "removal"):
        kinds[e.get("class")] = kinds.get(e.get("class"), 0) + 1
# the spawn at step 40 and the removal at step 120, once in each view
assert kinds == {"spawn": 2, "removal": 2}, kinds
EOF
    ok
    expect 0 "$os" plot --diff tm2.ostm tm1.ostm -o tmd.svg
    python3 diff_check.py tmd.svg 9999 200 || fail "plot --diff of a recording and its replay: see above"; ok
    expect 0 "$os" plot tm2.ostm tm1.ostm -o tmo.svg
    svg_ok tmo.svg; ok
fi

# plug-ins that are not: no file, no entry symbol, another ABI; one line each, exit 1
expect 1 "$os" --module ./nowhere.so verify run.ostm
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "nowhere.so: module: expected a shared library" err.txt ||
    fail "missing plug-in: $(cat err.txt)"; ok
# a plug-in name with an escape byte: the path and dlopen's reason that repeats it, escaped
esc=$(printf 'bad\033name.so')
printf 'x' >"$esc"
expect 1 "$os" --module "./$esc" verify run.ostm
[ "$(wc -l <err.txt)" -eq 1 ] && ! grep -q "$(printf '\033')" err.txt && grep -qF 'bad\x1Bname.so' err.txt ||
    fail "escaped plug-in name: $(cat -v err.txt)"; ok
printf 'int unrelated(void) { return 1; }\n' >none.c
"$cc" -shared -fPIC none.c -o none.so
expect 1 "$os" --module ./none.so verify run.ostm
grep -q "none.so: module: expected the entry symbol onescope_module_entry, found none" err.txt ||
    fail "no entry: $(cat err.txt)"; ok
printf 'const void *onescope_module_entry(unsigned abi) { (void)abi; return 0; }\n' >abi.c
"$cc" -shared -fPIC abi.c -o abi.so
expect 1 "$os" --module ./abi.so verify run.ostm
grep -q "abi.so: module: expected a table for ABI 1" err.txt || fail "ABI: $(cat err.txt)"; ok
# entity rows (docs/recording.md): the recorder writes one per step from its own world; the
# planted divergence is then named by entity and group from the file alone, in text, JSON and
# JUnit; a file without them says the entities cannot be named
"$b/springs_record" --entity-rows rows.ostm 600 64 >/dev/null
expect 0 "$os" --module "$plugin" verify rows.ostm
grep -q "rows.ostm: ok, 601 hash rows match" out.txt || fail "entity rows verify: $(cat out.txt)"; ok
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify --junit rows.xml rows.ostm
grep -q "^rows.ostm: row 251: 2 of 64 entities differ: id 5 (position, velocity), id 6 (position, velocity)$" out.txt ||
    fail "entity rows: the entities not named: $(cat out.txt)"; ok
grep -q "id 5 (position, velocity)" rows.xml || fail "entity rows: JUnit: $(cat rows.xml)"; ok
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify --json rows.ostm
python3 - <<'PY' || fail "entity rows --json: $(cat out.txt)"
import json
d = json.loads(open("out.txt").readline())
assert d["entity_rows"] is True, d
e = d["entities"]
assert (e["differing"], e["recorded"], e["found"]) == (2, 64, 64), e
assert [x["id"] for x in e["listed"]] == [5, 6], e
assert all(x["groups"] == ["position", "velocity"] and x["in_recording"] and x["in_world"] for x in e["listed"]), e
PY
ok
# a step the module refuses (E_MISMATCH) is an error of its row, never a mismatch (item 4)
SPRINGS_BUG=refuse=250 expect 1 "$os" --module "$plugin" verify --json rows.ostm
python3 - <<'PY' || fail "a refused step --json: $(cat out.txt)"
import json
d = json.loads(open("out.txt").readline())
assert (d["status"], d["verdict"], d["row"], d["step"]) == ("module_error", "module_error", 251, 250), d
assert d["expected"] is None and d["entities"] is None and "refused" in d["error"], d
PY
ok
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify run.ostm
grep -q "run.ostm: no entity rows in this recording: verified by world hash alone" out.txt ||
    fail "no entity rows: not said: $(cat out.txt)"; ok
[ "$(stat -c %s rows.ostm)" -gt "$(stat -c %s run.ostm)" ] || fail "entity rows: no bigger file"; ok

# keyframes (docs/recording.md): a snapshot and value table every 50 steps. The planted
# divergence is then explained from row 250's keyframe in 50 steps, with the values recorded and
# found; a diff of two recordings runs only from the keyframe before their first differing row.
"$b/springs_record" --entity-rows --keyframes 50 keys.ostm 600 64 >/dev/null
expect 0 "$os" --module "$plugin" verify keys.ostm
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify keys.ostm
grep -q "^keys.ostm: row 251: 2 of 64 entities differ: id 5 (position, velocity), id 6 (position, velocity)$" out.txt ||
    fail "keyframes: the entities: $(cat out.txt)"; ok
grep -Eq "^keys.ostm: keyframe row 300 \(ran 50 steps from row 250's keyframe, proven\): [0-9]+ of [0-9]+ values differ: id [0-9]+ [a-z]+\.[a-z]+ recorded -?[0-9.e+-]+ found -?[0-9.e+-]+" out.txt ||
    fail "keyframes: the values: $(cat out.txt)"; ok
cp out.txt keys-text.txt
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify --json keys.ostm
python3 - <<'PY' || fail "keyframes --json: $(cat out.txt)"
import json, re
k = json.loads(open("out.txt").readline())["keyframe"]
assert (k["start_row"], k["restored"], k["steps_run"], k["row"]) == (250, True, 50, 300), k
assert k["differing"] > 0 and k["listed"] and all(x["recorded"] != x["found"] for x in k["listed"]), k
# more values differ than are listed: the counts are the text's, not the list's length
n, m = map(int, re.search(r"keyframe row 300 .*?: ([0-9]+) of ([0-9]+) values differ", open("keys-text.txt").read()).groups())
assert (k["differing"], k["values_compared"]) == (n, m) and n > len(k["listed"]), (n, m, k)
PY
ok
# one input changed at step 270: the diff names row 271, from row 250 (21 steps to find it, 21 to explain it)
"$b/springs_record" --entity-rows --keyframes 50 --change 270 keysc.ostm 600 64 >/dev/null
expect 1 "$os" --module "$plugin" diff keys.ostm keysc.ostm
grep -q "^keyframes: ran from row 250, 42 steps (the rows before agree as recorded)$" out.txt &&
    grep -q "^first difference: row 271 (the world after step 270)" out.txt &&
    grep -q "^step 270 input: differs" out.txt || fail "keyframes diff: $(cat out.txt)"; ok
[ "$(stat -c %s keys.ostm)" -gt "$(stat -c %s rows.ostm)" ] || fail "keyframes: no bigger file"; ok

# module check: the clean module passes every check; each planted bug class is caught by name
expect 0 "$os" --module "$plugin" module check run.ostm
[ "$(grep -c ': passed over 600 steps$' out.txt)" = 5 ] || fail "module check clean: $(cat out.txt)"; ok
SPRINGS_BARE=1 expect 0 "$os" --module "$plugin" module check --steps 50 run.ostm
grep -q "restore: skipped (needs snapshot)" out.txt && grep -q "stages: skipped (needs run_stage)" out.txt &&
    grep -q "hash: skipped (needs values)" out.txt || fail "module check bare: $(cat out.txt)"; ok
for b in snapshot:restore hash:hash order:determinism global:determinism; do
    SPRINGS_BUG=${b%%:*} expect 1 "$os" --module "$plugin" module check -q run.ostm
    grep -q "^run.ostm: ${b#*:}: FAILED at step " out.txt || fail "module check ${b%%:*}: $(cat out.txt)"; ok
done
SPRINGS_BUG=hash expect 1 "$os" --module "$plugin" module check --json run.ostm
python3 -c '
import json; d = json.load(open("out.txt")); c = {x["check"]: x for x in d["checks"]}
h = c["hash"]
assert h["status"] == "failed" and h["stage"] == "forces" and h["value"].startswith("velocity."), h
assert h["hashes"][0] == h["hashes"][1] and h["values"][0] != h["values"][1], h
' || fail "module check --json hash: $(cat out.txt)"; ok

echo "springs example: $checks checks passed"
