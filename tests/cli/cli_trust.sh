# What the CLI says of a subtly wrong module (issue 38, items 1-6), through the agents plug-in
# (tests/agents: a new user's engine whose faults AGENTS_FAULTS picks) and its recorder: a
# module refusal is an error of its row in text, JSON and JUnit (never a mismatch with zero
# hashes); a keyframe table that differs where the hash rows match fails verify; a keyframe the
# module's snapshot cannot reproduce is not used, and the explanation blames the one entity;
# row 0 with the same setup bytes says the world differs, not the setup; module check catches
# a hash that misses a value no stage changes alone.
# $4 the plug-in, $5 agents_record.
. "$(dirname "$0")/common.sh"
PLUGIN=$4
RECORD=$5
S=$SCRATCH
os() { "$ONESCOPE" --module "$PLUGIN" "$@"; }

"$RECORD" "$S/clean.ostm" 120 16 || bad "record clean"
"$RECORD" "$S/snap.ostm" 120 16 snapshot || bad "record snapshot"
"$RECORD" "$S/hash.ostm" 120 16 hash || bad "record hash"

# the clean run passes, its keyframe tables counted
expect_exit 0 os verify --json "$S/clean.ostm"
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["status"] == "ok" and d["verdict"] == "pass" and d["keyframes_checked"] == 7, d
' "$S/out" && ok || bad "clean: $(cat "$S/out")"

# item 4: a refusal at step 20 (E_MISMATCH from the module) is an error of row 21
AGENTS_FAULTS=refuse=20 expect_exit 1 os verify "$S/clean.ostm"
expect_grep "clean.ostm: row 21: the module refused step 20" "$S/out"
grep -q "0000000000000000" "$S/out" "$S/err" && bad "refusal: invented hashes" || ok
AGENTS_FAULTS=refuse=20 expect_exit 1 os verify --json --junit "$S/r.xml" "$S/clean.ostm"
python3 - "$S/out" "$S/r.xml" <<'PY' && ok || bad "refusal json/junit: $(cat "$S/out")"
import json, sys, xml.etree.ElementTree as ET
lines = open(sys.argv[1]).read().splitlines()
d, summary = json.loads(lines[0]), json.loads(lines[1])
assert d["status"] == "module_error" and d["verdict"] == "module_error", d
assert d["row"] == 21 and d["step"] == 20 and d["expected"] is None and d["actual"] is None, d
assert summary["module_error"] == 1 and summary["mismatch"] == 0, summary
case = ET.parse(sys.argv[2]).getroot().find("testsuite/testcase")
err = case.find("error")
assert err is not None and err.get("type") == "module_error" and case.find("failure") is None
assert "0000000000000000" not in err.get("message"), err.get("message")
PY

# items 1 and 6: the snapshot leaves energy out; a velocity bug on agent 3 at step 40 is one
# entity's difference, and the keyframe at row 32 is not used to say otherwise
AGENTS_FAULTS=snapshot,bug=40:3 expect_exit 1 os verify "$S/snap.ostm"
expect_grep "hash row 41 (the world after step 40)" "$S/err"
expect_grep "snap.ostm: row 41: 1 of [0-9]* entities differs: id 3 (position, velocity" "$S/out"
expect_grep "id 3 vx recorded 1.1789997 found 1.6789997" "$S/out"
expect_grep "from row 0: the keyframe at row 32 is not the recorded world" "$S/out"
expect_grep "keyframe row 48 .*: id 3 " "$S/out"
AGENTS_FAULTS=snapshot,bug=40:3 expect_exit 1 os verify --json "$S/snap.ostm"
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
k = d["keyframe"]
assert k["use"] == "snapshot_incomplete" and k["judged_row"] == 32 and k["start_row"] == 0, k
assert k["listed"][0]["id"] == 3, k
assert d["entities"]["differing"] == 1 and d["entities"]["listed"][0]["id"] == 3, d
' "$S/out" && ok || bad "snapshot json: $(cat "$S/out")"

# item 2: the hash leaves energy out; an energy bug at step 40 shows in no hash row, but the
# keyframe table at row 48 says so
AGENTS_FAULTS=hash expect_exit 0 os verify "$S/hash.ostm"
AGENTS_FAULTS=hash,bug=40:3:energy expect_exit 1 os verify "$S/hash.ostm"
expect_grep "keyframe table at row 48, entity 3 energy" "$S/err"
expect_grep "the module's hash misses this value" "$S/err"
expect_grep "hash.ostm: row 48: every hash row through it matched" "$S/out"
AGENTS_FAULTS=hash,bug=40:3:energy expect_exit 1 os verify --json "$S/hash.ostm"
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).readline())
assert d["status"] == "mismatch" and d["verdict"] == "table_mismatch" and d["row"] == 48, d
t = d["table"]
assert t["entity"] == 3 and t["value"] == "energy" and t["in_world"] and t["in_recording"], t
assert abs(t["recorded"] - t["found"] - 3) < 1e-3, t
' "$S/out" && ok || bad "hash json: $(cat "$S/out")"

# item 4: row 0 with the same setup bytes: another build's world, not another setup
AGENTS_FAULTS=hash expect_exit 1 os verify "$S/clean.ostm"
expect_grep "hash row 0 (the start world)" "$S/err"
expect_grep "from the same bytes it makes another world (a build or module difference)" "$S/out"
grep -q "the setup or start snapshot differs" "$S/out" && bad "row 0 blames the setup" || ok

# item 3: module check catches the hash that misses energy (it only changes with the position)
expect_exit 0 os module check "$S/clean.ostm"
AGENTS_FAULTS=hash expect_exit 1 os module check "$S/hash.ostm"
expect_grep "hash: FAILED at step [0-9]*: entity [0-9]* (id [0-9]*) energy is" "$S/out"

# item 11: a snapshot too large for the live stream is the recording's error, at its module and
# step, not the encoder's
AGENTS_FAULTS=fat expect_exit 1 os live serve --probe-every 10 "$S/clean.ostm"
[ "$(wc -l <"$S/err")" = 1 ] && grep -q "^$S/clean.ostm: module test.agents, step 10: " "$S/err" &&
    ok || bad "live serve fat: $(cat "$S/err")"

finish
