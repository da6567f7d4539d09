# onescope module check: the test module passes every check over v1 replays and a module
# recording; --json; bad files and usage errors are one line each; a missing subcommand.
. "$(dirname "$0")/common.sh"
TD=$SRC/testdata

for f in test-2d-600.ostm test-link-left.ostm test-field-3d.ostm test-live-attach.ostm; do
    expect_exit 0 "$ONESCOPE" module check --steps 200 "$TD/$f"
    [ "$(grep -c ': passed over ' "$SCRATCH/out")" = 5 ] && ok || bad "$f: $(cat "$SCRATCH/out")"
done
# -q: nothing when everything passed
expect_exit 0 "$ONESCOPE" -q module check --steps 30 --every 1 --horizon 2 "$TD/test-2d-600.ostm"
[ -s "$SCRATCH/out" ] && bad "-q printed: $(cat "$SCRATCH/out")" || ok

expect_exit 0 "$ONESCOPE" module check --json --steps 50 "$TD/test-2d-600.ostm"
python3 -c '
import json, sys; d = json.load(open(sys.argv[1]))
assert d["module"] == "onescope.test" and d["steps"] == 50 and d["failed"] == 0, d
assert [c["check"] for c in d["checks"]] == ["determinism", "snapshot", "restore", "stages", "hash"], d
assert all(c["status"] == "passed" and c["step"] is None for c in d["checks"]), d
' "$SCRATCH/out" && ok || bad "json: $(cat "$SCRATCH/out")"

# a module recording (OSTM v2) of the test module: three empty steps (module check reads the
# setup and inputs, not the rows)
python3 - "$SCRATCH/m.ostm" <<'PY'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 1, 3) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", 1)
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<IQ", 0, 2 + i) for i in range(3)))
PY
expect_exit 0 "$ONESCOPE" module check "$SCRATCH/m.ostm"
[ "$(grep -c 'm.ostm: .*: passed over 3 steps' "$SCRATCH/out")" = 5 ] && ok || bad "v2: $(cat "$SCRATCH/out")"

# bad files: one line each, naming the file, exit 1
printf 'garbage' >"$SCRATCH/g.ostm"
head -c 40 "$TD/test-2d-600.ostm" >"$SCRATCH/cut.ostm"
for f in g.ostm cut.ostm missing.ostm; do
    expect_exit 1 "$ONESCOPE" module check "$SCRATCH/$f"
    [ "$(wc -l <"$SCRATCH/err")" = 1 ] && grep -q "$f" "$SCRATCH/err" && ok || bad "$f: $(cat "$SCRATCH/err")"
done
expect_exit 1 "$ONESCOPE" module check "$SCRATCH/g.ostm"
expect_grep "g.ostm: offset 0: magic: expected \"OSTM\"" "$SCRATCH/err"

# usage: exit 2, one line
for args in "" "check" "nope x.ostm" "check --steps 0 x.ostm" "check --every 0 x.ostm" \
    "check --horizon x x.ostm" "check a.ostm b.ostm"; do
    expect_exit 2 "$ONESCOPE" module $args
    [ "$(wc -l <"$SCRATCH/err")" = 1 ] && ok || bad "module $args: $(cat "$SCRATCH/err")"
done
expect_exit 0 "$ONESCOPE" module check --help
expect_grep "usage: onescope module check RECORDING.ostm" "$SCRATCH/out"

finish
