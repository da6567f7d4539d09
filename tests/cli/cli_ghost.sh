# CLI contract for ghosts and the test-data generator.
. "$(dirname "$0")/common.sh"
TD="$SRC/testdata"
S=$SCRATCH

# The committed ghost is exactly what the CLI makes from the committed 2D replay.
expect_exit 0 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/g.ospc" --from 200 --frames 40 \
    --offset 400,0,0 --label "ghost of test-2d-600.ostm, 400 mm to the right"
if cmp -s "$S/g.ospc" "$TD/test-2d-ghost.ospc"; then ok; else bad "ghost differs from testdata/test-2d-ghost.ospc"; fi

# 3D, a negative offset: every pose is the replay's position plus the offset, absent bodies NaN.
expect_exit 0 "$ONESCOPE" ghost "$TD/test-link-right.ostm" "$S/g3.ospc" --from 140 --frames 30 --offset -7,20000,-300
"$ONESCOPE" replay --json --state "$TD/test-link-right.ostm" >"$S/states.json"
if python3 - "$S/g3.ospc" "$S/states.json" <<'PY'; then ok; else bad "ghost poses equal the replay's positions plus the offset"; fi
import json, math, struct, sys
b = open(sys.argv[1], 'rb').read()
ents, frames, start = struct.unpack_from('<IIq', b, 12)
assert frames == 30 and start == 140
rows = {r['step']: r for r in json.load(open(sys.argv[2]))['rows']}
poses = b[len(b) - ents * frames * 28:]
absent = present = 0
for f in range(frames):
    bodies = rows[140 + f]['bodies']
    assert len(bodies) <= ents
    for e in range(ents):
        p = struct.unpack_from('<7f', poses, (f * ents + e) * 28)
        if e >= len(bodies) or bodies[e]['alive'] == 0:
            assert math.isnan(p[0]); absent += 1; continue
        want = [bodies[e]['position'][a] + (-7, 20000, -300)[a] for a in range(3)]
        assert list(p[:3]) == want, (f, e, p, want)
        assert p[3:] == (0.0, 0.0, 0.0, 1.0)
        present += 1
assert absent > 0 and present > 0, (absent, present)
PY
expect_exit 0 "$ONESCOPE" validate "$S/g3.ospc"

# Refusals: past the end, bad offsets, usage. OUT is never created.
expect_exit 1 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/no.ospc" --from 590 --frames 12
expect_grep "from + frames" "$S/err"
expect_exit 0 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/last.ospc" --from 590 --frames 11
expect_exit 1 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/no.ospc" --from 0 --frames 1 --offset 0,0,5
expect_grep "offset z: expected 0 in a 2D world, found 5" "$S/err"
expect_exit 1 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/no.ospc" --from 0 --frames 1 --offset 2000000,0,0
for o in 1,2 1,2,3,4 a,b,c 1.5,0,0 "" 1,,2 99999999999,0,0; do
    expect_exit 2 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/no.ospc" --from 0 --frames 1 --offset "$o"
done
expect_grep "offset must be X,Y,Z" "$S/err"
expect_exit 2 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/no.ospc" --from 0
expect_exit 2 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/no.ospc" --from 0 --frames 0
expect_exit 2 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" --from 0 --frames 1
expect_exit 1 "$ONESCOPE" ghost "$S/missing.ostm" "$S/no.ospc" --from 0 --frames 1
[ ! -e "$S/no.ospc" ] && ok || bad "ghost created OUT for a refused call"
cp "$TD/test-2d-600.ostm" "$S/same.ostm"
expect_exit 1 "$ONESCOPE" ghost "$S/same.ostm" "$S/same.ostm" --from 0 --frames 1
cmp -s "$S/same.ostm" "$TD/test-2d-600.ostm" && ok || bad "ghost overwrote its replay"
expect_exit 0 "$ONESCOPE" ghost --help

# streamed through the pose writer: --segments takes the same small ghost unchanged; '-' keeps
# the in-memory path with the same bytes; --segments with '-' is a usage error
expect_exit 0 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/seg.ospc" --from 200 --frames 40 \
    --offset 400,0,0 --label "ghost of test-2d-600.ostm, 400 mm to the right" --segments
cmp -s "$S/seg.ospc" "$TD/test-2d-ghost.ospc" && ok || bad "ghost --segments differs"
"$ONESCOPE" ghost "$TD/test-2d-600.ostm" - --from 200 --frames 40 --offset 400,0,0 \
    --label "ghost of test-2d-600.ostm, 400 mm to the right" >"$S/stdout.ospc"
cmp -s "$S/stdout.ospc" "$TD/test-2d-ghost.ospc" && ok || bad "ghost to standard output differs"
expect_exit 2 "$ONESCOPE" ghost "$TD/test-2d-600.ostm" - --from 0 --frames 1 --segments
[ ! -e "$S/seg.ospc.partial" ] && [ ! -e "$S/no.ospc.partial" ] && ok || bad "a partial was left"

# gen-testdata's command line; that its files equal testdata/ byte for byte is the testdata
# stage of scripts/test.sh (it compares against several builds, which one ctest cannot).
expect_exit 0 "$ONESCOPE" -q gen-testdata "$S/td"
expect_exit 0 "$ONESCOPE" -q validate "$S/td"/*.ostm "$S/td"/*.ospc
expect_exit 2 "$ONESCOPE" gen-testdata
expect_exit 2 "$ONESCOPE" gen-testdata a b
expect_exit 1 "$ONESCOPE" gen-testdata "$S/missing/deeper"
expect_exit 0 "$ONESCOPE" gen-testdata --help
finish
