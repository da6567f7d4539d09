# CLI contract for the Box3D module (docs/box3d-module.md): box3d-record writes a module
# recording, and the stock commands read it; a planted one-ulp force is found and named.
. "$(dirname "$0")/common.sh"
S=$SCRATCH

# a floor and 60 small bodies in a grid
python3 - "$S/pile.json" <<'PY'
import json, sys
b = [{"kind": "static_box", "position": [0, -0.5, 0], "size": [20, 0.5, 20]}]
for i in range(60):
    b.append({"kind": "box" if i % 2 == 0 else "sphere", "size": [0.1, 0.1, 0.1], "density": 250,
              "position": [(i % 5) * 0.25 - 0.5, 0.12 + ((i // 5) % 5) * 0.25, (i // 25) * 0.25 - 0.5]})
json.dump({"dt": 1 / 60, "substeps": 4, "bodies": b}, open(sys.argv[1], "w"))
PY

"$ONESCOPE" box3d-record "$S/pile.json" "$S/probe.ostm" --steps 1 >"$S/out" 2>"$S/err"
if grep -q "Box3D is not built in" "$S/err"; then
    # without Box3D: the command and a Box3D recording each get one line, exit 1
    [ "$(wc -l <"$S/err")" -eq 1 ] && [ ! -e "$S/probe.ostm" ] && ok || bad "no-Box3D record: $(cat "$S/err")"
    { printf 'OSTM\002\000\001\000\000\000\000\000\016onescope.box3d\0171 (box3d 0.2.0)'
      printf '\002\000\000\000{}\001\002\003\004\005\006\007\010'; } >"$S/b3.ostm"
    expect_exit 1 "$ONESCOPE" verify "$S/b3.ostm"
    cat "$S/out" "$S/err" >"$S/both"
    expect_grep "b3.ostm: offset 12: module: expected a build with Box3D for onescope.box3d 1 (box3d 0.2.0), found this build has no Box3D" "$S/both"
    if [ "$failed" -eq 0 ]; then echo "SKIPPED: Box3D not built in"; exit 77; fi
    finish
fi

expect_exit 0 "$ONESCOPE" box3d-record "$S/pile.json" "$S/a.ostm" --steps 200 --entity-rows --keyframes 50
expect_grep "pile.json: 61 bodies, 200 steps" "$S/out"
expect_exit 0 "$ONESCOPE" validate "$S/a.ostm"
expect_grep "a.ostm: valid ostm2" "$S/out"
expect_exit 0 "$ONESCOPE" verify "$S/a.ostm"
expect_grep "a.ostm: ok, 201 hash rows match" "$S/out"
expect_exit 0 "$ONESCOPE" dump "$S/a.ostm"
expect_grep "module           onescope.box3d 1 (box3d " "$S/out"
expect_exit 0 "$ONESCOPE" module check --steps 100 "$S/a.ostm"
expect_grep "a.ostm: determinism: passed over 100 steps" "$S/out"
expect_grep "a.ostm: hash: passed over 100 steps" "$S/out"
for c in snapshot restore stages; do expect_grep "a.ostm: $c: passed over 100 steps" "$S/out"; done
# a malformed key: the snapshot fails, and the checks that need one fail with it
ONESCOPE_SNAPSHOT_KEY=xyz "$ONESCOPE" module check --steps 3 "$S/a.ostm" >"$S/out" 2>&1
[ $? -eq 1 ] && ok || bad "a malformed key passed module check"
expect_grep "snapshot: FAILED at step 0: .*ONESCOPE_SNAPSHOT_KEY is not 32 hex digits" "$S/out"
expect_grep "restore: FAILED at step 0: not run from step 0: the snapshot failed" "$S/out"
expect_exit 0 "$ONESCOPE" replay "$S/a.ostm"
expect_grep "step 200 hash " "$S/out"
expect_exit 0 "$ONESCOPE" ghost "$S/a.ostm" "$S/g.ospc" --from 0 --frames 50
expect_exit 0 "$ONESCOPE" dump "$S/g.ospc" --json
expect_grep '"entity_count": 61' "$S/out"
expect_exit 0 "$ONESCOPE" plot "$S/a.ostm" -o "$S/a.svg"
# the same seed, the same bytes; another seed, another run
expect_exit 0 "$ONESCOPE" box3d-record "$S/pile.json" "$S/a2.ostm" --steps 200 --entity-rows --keyframes 50
if cmp -s "$S/a.ostm" "$S/a2.ostm"; then ok; else bad "two recordings of one seed differ"; fi
# live: attach follows the stream's module by its id; a probe's snapshot from another process
# restores only under a shared key (one line without it, exit 1)
"$ONESCOPE" live serve "$S/a.ostm" | "$ONESCOPE" live attach >"$S/out" 2>"$S/err"
expect_grep "200 steps checked, every hash matched" "$S/err"
"$ONESCOPE" live serve "$S/a.ostm" | "$ONESCOPE" live attach --from 100 >"$S/out" 2>"$S/err"
[ "${PIPESTATUS[1]}" -eq 1 ] && [ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "live attach --from 100 without a key: $(cat "$S/err")"
expect_grep "step 100: tag: expected a snapshot this process made (set ONESCOPE_SNAPSHOT_KEY" "$S/err"
KEY=00112233445566778899aabbccddeeff
ONESCOPE_SNAPSHOT_KEY=$KEY "$ONESCOPE" live serve "$S/a.ostm" |
    ONESCOPE_SNAPSHOT_KEY=$KEY "$ONESCOPE" live attach --from 100 >"$S/out" 2>"$S/err"
expect_grep "100 steps checked, every hash matched" "$S/err"

# the planted change: step 30's force one ulp larger in x
expect_exit 0 "$ONESCOPE" box3d-record "$S/pile.json" "$S/b.ostm" --steps 200 --entity-rows --keyframes 50 --ulp 30
expect_exit 1 "$ONESCOPE" diff "$S/a.ostm" "$S/b.ostm"
# no keyframe before row 31 (K = 50): from row 0, as without keyframes, nothing said of them
grep -q "^keyframes:" "$S/out" && bad "keyframes line: $(cat "$S/out")" || ok
expect_grep "^first difference: row 31 (the world after step 30)" "$S/out"
expect_grep "^step 30 input: differs: force body [0-9]* (" "$S/out"
expect_grep "^stage: step (2 of 2)" "$S/out"
expect_grep "^entity [0-9]* (id [0-9]*) [a-z_]*\.[xyzw] ([a-z/]*): .* and .*, [0-9]* ulps\?; [0-9]* entit" "$S/out"
expect_exit 1 "$ONESCOPE" diff --json "$S/a.ostm" "$S/b.ostm"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["first"]
assert not d["from_keyframes"] and d["steps_run"] == 62 and f["row"] == 31, d
assert f["stage"]["name"] == "step" and f["value"]["ulps"] >= 1, f
' "$S/out" && ok || bad "diff --json: $(cat "$S/out")"

# keyframes under a shared key: diff restores the keyframe before the difference; without the
# key the keyframe is refused (said, with its offset) and the worlds run from row 0
for f in a b; do
    u=; [ $f = b ] && u="--ulp 120"
    ONESCOPE_SNAPSHOT_KEY=$KEY expect_exit 0 "$ONESCOPE" box3d-record "$S/pile.json" "$S/k$f.ostm" --steps 200 --entity-rows --keyframes 50 $u
done
ONESCOPE_SNAPSHOT_KEY=$KEY expect_exit 1 "$ONESCOPE" diff "$S/ka.ostm" "$S/kb.ostm"
expect_grep "^keyframes: ran from row 100, 42 steps" "$S/out"
expect_grep "^first difference: row 121 " "$S/out"
expect_exit 1 "$ONESCOPE" diff "$S/ka.ostm" "$S/kb.ostm"
expect_grep "^keyframes: not restored, ran from row 0: .*ka.ostm: offset [0-9]*: keyframe at row 100: tag: expected" "$S/out"
expect_grep "^first difference: row 121 " "$S/out"
expect_exit 1 "$ONESCOPE" diff --json "$S/ka.ostm" "$S/kb.ostm"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["restore_failed"] and "keyframe at row 100" in d["restore_error"] and d["first"]["row"] == 121, d
' "$S/out" && ok || bad "diff --json restore_error: $(cat "$S/out")"

# Box3D's log never reaches standard output (issue 38 item 14): Box3D printed "Box3D: unstable:
# NULL" there at every step whose solver made a body's state non-finite, inside a --json report
# or a live stream. Step 20's first action of a copy becomes an angular impulse of 1e20 on its
# body: the step is refused at its row (a module error naming the lane, with Box3D's message),
# and standard output holds exactly the JSON.
expect_exit 0 "$ONESCOPE" box3d-record "$S/pile.json" "$S/p.ostm" --steps 30
python3 - "$S/p.ostm" "$S/u.ostm" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
assert d[:6] == b"OSTM\x02\x00" and struct.unpack_from("<H", d, 6)[0] == 1  # hash rows only
a = d[12]; b = d[13 + a]; p = 14 + a + b
p += 4 + struct.unpack_from("<I", d, p)[0] + 8  # the setup, hash row 0
for i in range(20):
    p += 4 + struct.unpack_from("<I", d, p)[0] + 8
assert struct.unpack_from("<I", d, p)[0] >= 17 and d[p + 4] == 1  # step 20: a force first
d[p + 4] = 4  # an angular impulse
struct.pack_into("<fff", d, p + 9, 1e20, 1e20, 1e20)
open(sys.argv[2], "wb").write(d)
PY
expect_exit 1 "$ONESCOPE" verify --json "$S/u.ostm"
python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
r, s = json.loads(lines[0]), json.loads(lines[1])
assert r["verdict"] == "module_error" and r["row"] == 21 and r["step"] == 20, r
assert "expected a finite number after the step" in r["error"] and "unstable" in r["error"], r
assert s["module_error"] == 1, s
' "$S/out" && ok || bad "verify --json of a diverging Box3D step: $(head -c 600 "$S/out")"
grep -q "^Box3D: \|^BOX3D ASSERTION" "$S/err" && bad "Box3D wrote to stderr: $(cat "$S/err")" || ok
expect_exit 1 "$ONESCOPE" verify "$S/u.ostm"
expect_grep "u.ostm: offset [0-9]*: module onescope.box3d, step 20: [a-z_]*\[[0-9]*\]: expected a finite number after the step, found nan (Box3D's solver diverged; it said .unstable: NULL.)" "$S/err"
grep -q "^Box3D: \|^BOX3D ASSERTION" "$S/out" && bad "Box3D wrote to stdout: $(head -3 "$S/out")" || ok
# a live stream is the stream's bytes alone
timeout 60 "$ONESCOPE" live serve "$S/u.ostm" >"$S/stream" 2>"$S/err"
[ $? -eq 1 ] && ok || bad "live serve of a diverging step: exit not 1: $(cat "$S/err")"
grep -q "expected a finite number after the step, found nan (Box3D.s solver diverged; it said .unstable: NULL.)" "$S/err" && [ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "live serve: not one line: $(cat "$S/err")"
grep -a -q "Box3D:" "$S/stream" && bad "Box3D wrote into the live stream" || ok
# a density so small that Box3D's mass underflows is refused by the scene rules, in one line
printf '{"bodies": [{"kind": "sphere",\n  "density": 1e-45}]}' >"$S/tiny.json"
expect_exit 1 "$ONESCOPE" box3d-record "$S/tiny.json" "$S/never.ostm" --steps 3
expect_grep "tiny.json: line 2, column 14: bodies\[0\].density: expected a finite density in 1e-20..1e9 kg/m^3, found 1e-45" "$S/err"
[ "$(wc -l <"$S/err")" -eq 1 ] && [ ! -e "$S/never.ostm" ] && ok || bad "tiny density: $(cat "$S/err")"

# refusals: an unreadable scene, a bad scene, usage
printf '{"bodies": [{"kind": "cube"}]}' >"$S/bad.json"
expect_exit 1 "$ONESCOPE" box3d-record "$S/bad.json" "$S/never.ostm" --steps 3
[ ! -e "$S/never.ostm" ] && [ ! -e "$S/never.ostm.partial" ] && ok || bad "a refused scene left a file"
expect_exit 2 "$ONESCOPE" box3d-record "$S/pile.json" "$S/never.ostm"
expect_exit 2 "$ONESCOPE" box3d-record "$S/pile.json" "$S/never.ostm" --steps 0
expect_exit 2 "$ONESCOPE" box3d-record "$S/pile.json" "$S/never.ostm" --steps 5 --ulp 5
expect_exit 2 "$ONESCOPE" box3d-record "$S/pile.json" "$S/never.ostm" --steps 5 --keyframes 0
expect_exit 2 "$ONESCOPE" box3d-record "$S/pile.json" - --steps 5
expect_exit 1 "$ONESCOPE" box3d-record "$S/pile.json" "$S/pile.json" --steps 5
finish
