# CLI contract for the live stream: `live serve | live attach` through a real pipe.
. "$(dirname "$0")/common.sh"
TD="$SRC/testdata"
S=$SCRATCH

# pipeline NAME SERVE_ARGS -- ATTACH_ARGS: runs serve | attach, keeps attach's exit code.
pipeline() {
    local name=$1
    shift
    local serve=() attach=()
    while [ "$1" != "--" ]; do serve+=("$1"); shift; done
    shift
    attach=("$@")
    "$ONESCOPE" live serve "${serve[@]}" | "$ONESCOPE" live attach "${attach[@]}" >"$S/$name.out" 2>"$S/$name.err"
}

# A host playing a committed replay, a viewer attaching mid-run: its lines are the replay's
# rows from the first probe at or after --from (probes every 50 steps: step 150).
pipeline mid --replay "$TD/test-2d-600.ostm" --probe-every 50 -- --from 120
if [ $? -eq 0 ]; then ok; else bad "serve --replay | attach --from 120"; cat "$S/mid.err" >&2; fi
"$ONESCOPE" replay "$TD/test-2d-600.ostm" | awk '$2 >= 150' >"$S/mid.want"
if cmp -s "$S/mid.out" "$S/mid.want"; then ok; else bad "attach lines differ from the replay's rows"; diff "$S/mid.out" "$S/mid.want" | head >&2; fi
expect_grep "^step 150 hash " "$S/mid.out"
expect_grep "^step 600 hash " "$S/mid.out"
[ "$(wc -l <"$S/mid.out")" -eq 451 ] && ok || bad "451 lines (steps 150..600)"

# From the start, saving what it saw: the saved replay verifies and replays to the same lines.
pipeline full --dims 2 --bodies 5 --seed 3 --steps 200 --probe-every 0 -- --save "$S/full.ostm"
if [ $? -eq 0 ]; then ok; else bad "serve | attach --save"; cat "$S/full.err" >&2; fi
expect_exit 0 "$ONESCOPE" verify "$S/full.ostm"
expect_grep "201 hash rows match" "$S/out"
"$ONESCOPE" replay "$S/full.ostm" >"$S/full.replay"
if cmp -s "$S/full.out" "$S/full.replay"; then ok; else bad "saved replay's rows differ from attach's lines"; fi
expect_exit 0 "$ONESCOPE" dump --json "$S/full.ostm"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["flags"]==3 and d["start_step"]==0 and d["step_count"]==200' "$S/out"; then ok; else bad "saved replay: flags 3, start step 0, 200 steps"; cat "$S/out" >&2; fi

# Mid-run with --save: flag bit 1, the start snapshot at the probe's step.
pipeline part --dims 3 --bodies 9 --seed 4 --steps 300 --probe-every 64 -- --from 65 --save "$S/part.ostm"
if [ $? -eq 0 ]; then ok; else bad "attach --from 65 --save"; cat "$S/part.err" >&2; fi
expect_exit 0 "$ONESCOPE" verify "$S/part.ostm"
expect_exit 0 "$ONESCOPE" dump --json "$S/part.ostm"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["flags"]==3 and d["start_step"]==128 and d["step_count"]==172' "$S/out"; then ok; else bad "mid-run replay starts at 128"; cat "$S/out" >&2; fi
"$ONESCOPE" live serve --dims 3 --bodies 9 --seed 4 --steps 300 | "$ONESCOPE" live attach 2>/dev/null | awk '$2 >= 128' >"$S/part.all"
if cmp -s "$S/part.out" "$S/part.all"; then ok; else bad "a late viewer's lines equal a full viewer's by step number"; fi

# A linked world: the probe carries the link block, the saved replay keeps it.
pipeline link --dims 3 --bodies 6 --seed 2 --steps 120 --link 2,3,50 -- --save "$S/link.ostm"
if [ $? -eq 0 ]; then ok; else bad "serve --link"; cat "$S/link.err" >&2; fi
expect_exit 0 "$ONESCOPE" verify "$S/link.ostm"
expect_exit 0 "$ONESCOPE" dump "$S/link.ostm"
expect_grep "Continues, own key tm-right, other key tm-left, body 3, transfer step 50" "$S/out"

# A replay with a start snapshot as the host: step numbers are the host's.
pipeline snap --replay "$TD/test-live-attach.ostm" -- --json
if [ $? -eq 0 ]; then ok; else bad "serve --replay test-live-attach.ostm"; cat "$S/snap.err" >&2; fi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rows"]; assert d["ok"] and r[0]["step"]==150 and r[-1]["step"]==400 and d["steps"]==250' "$S/snap.out"; then ok; else bad "attach --json"; cat "$S/snap.out" >&2; fi

# Bad streams: exit 1 with the offset, "ok": false; OUT is never written, and OUT.partial
# keeps every step that was checked, which recover turns into a replay that verifies.
"$ONESCOPE" live serve --dims 2 --bodies 4 --steps 30 >"$S/s.bin"
size=$(wc -c <"$S/s.bin")
cp "$S/s.bin" "$S/badhash.bin"
printf '\x5a' | dd of="$S/badhash.bin" bs=1 seek=$((size - 14)) conv=notrunc status=none
expect_exit 1 "$ONESCOPE" live attach --json --save "$S/never.ostm" <"$S/badhash.bin"
expect_grep "<stdin>: offset [0-9]*: hash at step 30: expected [0-9a-f]\{16\} (the host.s), found [0-9a-f]\{16\} (the viewer.s)" "$S/err"
[ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "one line for a bad stream"
expect_grep '"ok": false' "$S/out"
[ ! -e "$S/never.ostm" ] && ok || bad "attach --save wrote a file for a bad stream"
expect_exit 0 "$ONESCOPE" recover "$S/never.ostm.partial"
expect_grep "kept 29 complete steps" "$S/out"
expect_exit 0 "$ONESCOPE" verify "$S/never.ostm"
head -c $((size - 5)) "$S/s.bin" >"$S/short.bin"
expect_exit 1 "$ONESCOPE" live attach --save "$S/short.ostm" <"$S/short.bin"
expect_grep "offset $((size - 13)): end: expected .*, found 8 of 8 payload bytes\|offset $((size - 13)): end" "$S/err"
[ ! -e "$S/short.ostm" ] && ok || bad "attach --save wrote a file for a truncated stream"
expect_exit 0 "$ONESCOPE" recover "$S/short.ostm.partial" "$S/short-recovered.ostm"
expect_grep "kept 30 complete steps" "$S/out"
expect_exit 0 "$ONESCOPE" verify "$S/short-recovered.ostm"
# A partial left there is never overwritten: the next attach refuses, naming it.
expect_exit 1 "$ONESCOPE" live attach --save "$S/short.ostm" <"$S/s.bin"
expect_grep "short.ostm.partial: it exists" "$S/err"
[ ! -e "$S/short.ostm" ] && ok || bad "attach --save over a leftover partial wrote OUT"

# A viewer killed mid-run (SIGKILL) leaves a partial that recover makes a replay of every step
# that reached it; the saved steps are a prefix of what the viewer checked.
"$ONESCOPE" live serve --dims 3 --bodies 8 --seed 5 --steps 40000 --probe-every 0 >"$S/long.bin"
half=$(($(wc -c <"$S/long.bin") / 2))
head -c "$half" "$S/long.bin" >"$S/long-half.bin"
rm -f "$S/fifo"
mkfifo "$S/fifo"
# The bare binary, so the signal reaches the viewer itself and not a wrapper around it.
"$ONESCOPE_BIN" live attach --save "$S/killed.ostm" <"$S/fifo" >"$S/killed.out" 2>"$S/killed.err" &
viewer=$!
exec 3>"$S/fifo"
cat "$S/long-half.bin" >&3
# Wait (no deadline: the viewer is blocked reading once it has taken every byte) until the
# viewer has printed a row near the end of what it was given, then kill it.
last=$(("$ONESCOPE" live attach 2>/dev/null <"$S/long-half.bin" || true) | tail -1 | cut -d' ' -f2)
while ! grep -q "^step $last " "$S/killed.out" && kill -0 "$viewer" 2>/dev/null; do sleep 0.05; done
kill -9 "$viewer"
wait "$viewer" 2>/dev/null
exec 3>&-
[ ! -e "$S/killed.ostm" ] && ok || bad "a killed viewer left OUT"
expect_exit 0 "$ONESCOPE" recover "$S/killed.ostm.partial"
kept=$(sed -n 's/.*kept \([0-9]*\) complete step.*/\1/p' "$S/out")
[ "${kept:-0}" -gt 0 ] && [ "$kept" -le "$last" ] && ok || bad "recovered $kept steps of $last checked"
expect_exit 0 "$ONESCOPE" verify "$S/killed.ostm"
"$ONESCOPE" replay "$S/killed.ostm" >"$S/killed.rows"
head -n $((kept + 1)) "$S/killed.out" | cmp -s - "$S/killed.rows" && ok || bad "recovered rows are not the viewer's first rows"
printf 'OSTM\1\0\0\0' >"$S/magic.bin"
expect_exit 1 "$ONESCOPE" live attach <"$S/magic.bin"
expect_grep "offset 0: magic: expected \"OSLS\"" "$S/err"
expect_exit 1 "$ONESCOPE" live attach </dev/null
expect_grep "offset 0: stream header" "$S/err"
expect_exit 1 "$ONESCOPE" live attach --from 31 <"$S/s.bin"
expect_grep "no probe at or after step 31" "$S/err"

# A captured stream is a file format: validate, dump, rewrite (byte-identical).
"$ONESCOPE" live serve --dims 3 --bodies 4 --steps 60 --probe-every 25 --link 1,2,30 >"$S/cap.osls"
expect_exit 0 "$ONESCOPE" validate "$S/cap.osls"
expect_grep "cap.osls: valid osls" "$S/out"
expect_exit 1 "$ONESCOPE" validate "$S/cap.osls" "$S/badhash.bin" "$S/short.bin"
expect_grep "short.bin: offset $((size - 13)): end" "$S/err"
expect_exit 0 "$ONESCOPE" dump "$S/cap.osls"
expect_grep "records          64 (3 probes, 60 steps, 1 end)" "$S/out"
expect_grep "link             role 1 (sender), body 2, transfer step 30" "$S/out"
expect_exit 0 "$ONESCOPE" dump --json "$S/cap.osls"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["format"]=="osls" and d["step_count"]==60 and d["probe_count"]==3 and d["end_step"]==60 and d["link"]["role"]==1' "$S/out"; then ok; else bad "dump --json of a stream"; cat "$S/out" >&2; fi
expect_exit 0 "$ONESCOPE" rewrite "$S/cap.osls" "$S/cap2.osls"
cmp -s "$S/cap.osls" "$S/cap2.osls" && ok || bad "rewrite of a stream is not byte-identical"
expect_exit 1 "$ONESCOPE" rewrite "$S/short.bin" "$S/never.osls"
[ ! -e "$S/never.osls" ] && ok || bad "rewrite created OUT for a truncated stream"

# Version 2: a module recording (here the test module's, 40 empty steps; serve computes the
# hashes, it does not check the file's rows) streamed as a stream that names its module.
python3 - "$S/m.ostm" <<'PY'
import struct, sys
steps = 40
head = b"OSTM" + struct.pack("<HHI", 2, 1, steps) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", 0)
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<IQ", 0, 0) for _ in range(steps)))
PY
"$ONESCOPE" live serve "$S/m.ostm" --probe-every 10 >"$S/m.osls"
expect_exit 0 "$ONESCOPE" dump "$S/m.osls"
expect_grep "^OSLS v2 live stream$" "$S/out"
expect_grep "module           onescope.test 1" "$S/out"
expect_grep "(4 probes, 40 steps, 1 end)" "$S/out"
expect_exit 0 "$ONESCOPE" live attach <"$S/m.osls"
[ "$(wc -l <"$S/out")" -eq 41 ] && expect_grep "^step 40 hash " "$S/out" || bad "v2: 41 rows"
# late, saving: an OSTM v2 recording whose rows are the viewer's, which verify reproduces
pipeline v2 "$S/m.ostm" --probe-every 10 -- --from 15 --save "$S/v2.ostm"
if [ $? -eq 0 ]; then ok; else bad "serve REC.ostm | attach --from 15 --save"; cat "$S/v2.err" >&2; fi
expect_grep "^step 20 hash " "$S/v2.out"
expect_exit 0 "$ONESCOPE" verify "$S/v2.ostm"
expect_grep "v2.ostm: ok, 21 hash rows match" "$S/out"
"$ONESCOPE" live attach <"$S/m.osls" | awk '$2 >= 20' >"$S/v2.want"
if cmp -s "$S/v2.out" "$S/v2.want"; then ok; else bad "late rows differ from the whole run's"; fi
# cut inside the module id: one line at the id's length byte; nothing saved
head -c 15 "$S/m.osls" >"$S/cut.osls"
expect_exit 1 "$ONESCOPE" live attach --save "$S/cut.ostm" <"$S/cut.osls"
[ "$(wc -l <"$S/err")" -eq 1 ] && expect_grep "<stdin>: offset 8: module id: expected its length byte and text, found 7 of 14 bytes" "$S/err" ||
    bad "cut v2: one line"
[ ! -e "$S/cut.ostm" ] && [ ! -e "$S/cut.ostm.partial" ] && ok || bad "cut v2 stream left a file"
expect_exit 2 "$ONESCOPE" live serve "$S/m.ostm" --replay "$S/m.ostm"

# Usage.
expect_exit 0 "$ONESCOPE" live --help
expect_grep "serve" "$S/out"
expect_exit 0 "$ONESCOPE" live serve --help
expect_exit 0 "$ONESCOPE" live attach --help
expect_exit 2 "$ONESCOPE" live
expect_exit 2 "$ONESCOPE" live watch
expect_exit 2 "$ONESCOPE" live serve --dims 4
expect_exit 2 "$ONESCOPE" live serve --bodies 65
expect_exit 2 "$ONESCOPE" live serve --link 4,0,0
expect_exit 2 "$ONESCOPE" live serve --link 1,2
expect_exit 2 "$ONESCOPE" live serve --replay "$TD/test-2d-600.ostm" --dims 2
expect_exit 2 "$ONESCOPE" live serve --steps
expect_exit 2 "$ONESCOPE" live attach --from x
expect_exit 2 "$ONESCOPE" live attach --bogus
expect_exit 1 "$ONESCOPE" live serve --replay "$TD/test-2d-600.ostm" --steps 601
expect_exit 1 "$ONESCOPE" live serve --link 1,9,5 --bodies 4
expect_grep "link body" "$S/err"
finish
