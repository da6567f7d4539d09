# CLI contract for box3d-dump: a JSON scene stepped in Box3D, written as an OSPC pose cache.
. "$(dirname "$0")/common.sh"

cat >"$SCRATCH/scene.json" <<'JSON'
{
  "gravity": [0, -9.81, 0],
  "dt": 0.0166667,
  "substeps": 4,
  "bodies": [
    {"name": "floor", "kind": "static_box", "position": [0, -0.5, 0], "size": [10, 0.5, 10]},
    {"name": "ball", "kind": "sphere", "position": [0, 2, 0], "size": [0.25, 0, 0], "restitution": 0.2},
    {"name": "post", "kind": "static_box", "position": [3, 2, 0], "size": [0.1, 0.1, 0.1]},
    {"name": "arm", "kind": "box", "position": [3.6, 2, 0], "size": [0.5, 0.05, 0.05], "parent": 2, "limb": 1},
    {"kind": "capsule", "position": [-2, 1, 0], "size": [0.2, 0.4, 0]}
  ],
  "joints": [
    {"kind": "revolute", "body_a": 2, "body_b": 3, "anchor": [3, 2, 0], "axis": [0, 0, 1],
     "limit": [-1, 1], "spring": {"hertz": 1, "damping_ratio": 0.5}}
  ]
}
JSON

# the scene is read before Box3D is needed: an invalid one is reported by every build
printf '{"bodies": [{"kind": "sphere",\n  "position": [0, "up", 0]}]}' >"$SCRATCH/early.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/early.json" "$SCRATCH/never.ospc" --steps 2
expect_grep "early.json: line 2, column 19: bodies\[0\].position\[1\]: expected a number, found a string" "$SCRATCH/err"

"$ONESCOPE" box3d-dump "$SCRATCH/scene.json" "$SCRATCH/probe.ospc" --steps 1 >"$SCRATCH/out" 2>"$SCRATCH/err"
if grep -q "Box3D is not built in" "$SCRATCH/err"; then
    # the refusal itself is the contract without Box3D: one line, exit 1, no file
    if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && [ ! -e "$SCRATCH/probe.ospc" ] && [ "$failed" -eq 0 ]; then
        echo "SKIPPED: Box3D not built in"
        exit 77
    fi
    echo "FAIL: the no-Box3D refusal is not one line or left a file, or a check above failed" >&2
    exit 1
fi

expect_exit 0 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" "$SCRATCH/run.ospc" --steps 120
expect_exit 0 "$ONESCOPE" validate "$SCRATCH/run.ospc"
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/run.ospc" --json
expect_grep '"entity_count": 5' "$SCRATCH/out"
expect_grep '"frame_count": 121' "$SCRATCH/out"
expect_grep '"module_id": "onescope.box3d"' "$SCRATCH/out"
expect_grep '"unit_name": "m"' "$SCRATCH/out"
expect_grep '"scene": "scene.json"' "$SCRATCH/out"
expect_grep '"name": "ball"' "$SCRATCH/out"
expect_grep '"present_pose_count": 605' "$SCRATCH/out"

# same scene, same bytes
expect_exit 0 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" "$SCRATCH/again.ospc" --steps 120
if cmp -s "$SCRATCH/run.ospc" "$SCRATCH/again.ospc"; then ok; else bad "two runs differ"; fi
expect_exit 0 "$ONESCOPE" box3d-dump - "$SCRATCH/stdin.ospc" --steps 120 <"$SCRATCH/scene.json"
if cmp -s <("$ONESCOPE" dump "$SCRATCH/run.ospc" | grep -v scene) <("$ONESCOPE" dump "$SCRATCH/stdin.ospc" | grep -v scene); then ok; else bad "stdin scene differs"; fi

# refusals: every one gives line:column (of the offending value, or for a descriptor the
# library refuses, of its object) and the JSON path; never an output file
printf '{"bodies": [{"kind": "sphere"},}' >"$SCRATCH/syntax.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/syntax.json" "$SCRATCH/never.ospc" --steps 2
expect_grep "syntax.json: line 1, column 32:" "$SCRATCH/err"
printf '{"bodies": [{"kind": "sphere",\n  "kind": "box"}]}' >"$SCRATCH/dup.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/dup.json" "$SCRATCH/never.ospc" --steps 2
expect_grep "dup.json: line 2, column 11: bodies\[0\].kind: expected each key once per object, found \"kind\" a second time" "$SCRATCH/err"
printf '{"bodies": [{"kind": "sphere", "size": [-1, 0, 0]}]}' >"$SCRATCH/neg.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/neg.json" "$SCRATCH/never.ospc" --steps 2
expect_grep "neg.json: line 1, column 41: bodies\[0\].size\[0\]: expected a sphere radius in 0.001..1000 m, found -1" "$SCRATCH/err"
printf '{"bodies": [{"kind": "cube"}]}' >"$SCRATCH/kind.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/kind.json" "$SCRATCH/never.ospc" --steps 2
expect_grep 'kind.json: line 1, column 22: bodies\[0\].kind: expected "sphere", "capsule", "box" or "static_box", found "cube"' "$SCRATCH/err"
printf '{"bodies": [{"kind": "sphere"}], "joints": [{"kind": "weld", "body_a": 0, "body_b": 3}]}' >"$SCRATCH/joint.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/joint.json" "$SCRATCH/never.ospc" --steps 2
expect_grep "joint.json: line 1, column 85: joints\[0\].body_b: expected the index of a body" "$SCRATCH/err"
printf '{"bodies": [{"kind": "sphere"}], "wind": 3}' >"$SCRATCH/key.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/key.json" "$SCRATCH/never.ospc" --steps 2
expect_grep "key.json: line 1, column 42: wind: expected gravity, dt, substeps" "$SCRATCH/err"
printf '{"bodies": [{"kind": "sphere", "position": [0, "up", 0]}]}' >"$SCRATCH/type.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/type.json" "$SCRATCH/never.ospc" --steps 2
expect_grep "type.json: line 1, column 48: bodies\[0\].position\[1\]: expected a number, found a string" "$SCRATCH/err"
if [ ! -e "$SCRATCH/never.ospc" ] && [ -z "$(ls "$SCRATCH" | grep tmp-)" ]; then ok; else bad "a refused scene left a file"; fi
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/missing.json" "$SCRATCH/never.ospc" --steps 2

# streamed frame by frame: the same bytes as the in-memory recording sent to standard output;
# a dump past the file limit (1000 bodies, 10000 steps: 280 MB) is refused before a step runs
expect_exit 0 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" - --steps 120
cmp -s "$SCRATCH/out" "$SCRATCH/run.ospc" && ok || bad "streamed dump differs from the in-memory one"
expect_exit 0 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" "$SCRATCH/seg.ospc" --steps 120 --segments
cmp -s "$SCRATCH/seg.ospc" "$SCRATCH/run.ospc" && ok || bad "--segments changed a small dump"
expect_exit 2 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" - --steps 2 --segments
python3 -c '
import json, sys
b = [{"kind": "sphere", "position": [(i % 32) * 2.0, 1 + (i // 32) * 2.0, 0], "size": [0.5, 0, 0]} for i in range(1000)]
json.dump({"gravity": [0, 0, 0], "bodies": b}, open(sys.argv[1], "w"))' "$SCRATCH/wide.json"
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/wide.json" "$SCRATCH/wide.ospc" --steps 10000
expect_grep "wide.json: output size: expected at most 268435456 bytes (the pose-cache file limit; ask for --segments), found .* bytes (10001 frames of 1000 bodies)" "$SCRATCH/err"
[ ! -e "$SCRATCH/wide.ospc" ] && [ ! -e "$SCRATCH/wide.ospc.partial" ] && ok || bad "a refused dump left a file"

# usage
expect_exit 0 "$ONESCOPE" box3d-dump --help
expect_grep "usage: onescope box3d-dump" "$SCRATCH/out"
expect_exit 2 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" "$SCRATCH/x.ospc"
expect_exit 2 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" "$SCRATCH/x.ospc" --steps 0
expect_exit 2 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" "$SCRATCH/x.ospc" --steps ten
expect_exit 2 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" --steps 3
expect_exit 1 "$ONESCOPE" box3d-dump "$SCRATCH/scene.json" "$SCRATCH/scene.json" --steps 3
expect_grep '"bodies"' "$SCRATCH/scene.json"

finish
