# verify for CI (issue 13 item 5): -j N equals -j 1 byte for byte, --json and --junit read by
# real parsers, shards partition the files, -r, every spelling, a mismatch names its step's
# operations and the diff command, nothing is ever skipped.
. "$(dirname "$0")/common.sh"
TD="$SRC/testdata"
S=$SCRATCH
mkdir -p "$S/many/a/b" "$S/many/c"
# 300 replays: copies of the small testdata ones spread over folders, and one mismatch
i=0
for k in $(seq 1 60); do
    for f in test-2d-600 test-field-2d test-field-3d test-link-left test-link-right; do
        d=$S/many; [ $((i % 3)) = 1 ] && d=$S/many/a/b; [ $((i % 3)) = 2 ] && d=$S/many/c
        cp "$TD/$f.ostm" "$d/r$k-$f.ostm"
        i=$((i + 1))
    done
done
python3 - "$TD/test-2d-600.ostm" "$S/many/a/bad.ostm" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[1622] ^= 1  # a bit of hash row 200
open(sys.argv[2], 'wb').write(b)
PY
echo not a replay >"$S/many/c/junk.ostm"
echo ignored >"$S/many/c/notes.txt"
N=$(find "$S/many" -name '*.ostm' | wc -l)

# -j 2 (and 3) print exactly what -j 1 prints
"$ONESCOPE" verify -r "$S/many" >"$S/j1.out" 2>"$S/j1.err"; rc1=$?
[ "$rc1" = 1 ] && ok || bad "verify -r of a folder with a mismatch: exit $rc1"
for sp in "-j 2" "-j2" "--jobs=2" "--jobs 3"; do
    "$ONESCOPE" verify $sp -r "$S/many" >"$S/j2.out" 2>"$S/j2.err"
    cmp -s "$S/j1.out" "$S/j2.out" && cmp -s "$S/j1.err" "$S/j2.err" && ok || bad "verify $sp differs from -j 1"
done
[ "$(grep -c ': ok, ' "$S/j1.out")" = $((N - 2)) ] && ok || bad "-r did not verify every *.ostm"
grep -q notes.txt "$S/j1.out" "$S/j1.err" && bad "-r took a file that is not *.ostm" || ok
sort -c <(grep ': ok, ' "$S/j1.out" | sed 's/: ok.*//' | grep "^$S/many/c/") && ok || bad "-r: not sorted"

# a mismatch names its step's operations and the diff that explains it
expect_exit 1 "$ONESCOPE" verify "$S/many/a/bad.ostm"
expect_grep "bad.ostm: hash row 200 (the world after step 199): expected 0fe6732c19b0d81d, found 0fe6732c19b0d81c" "$S/err"
expect_grep "bad.ostm: step 199 (host step 199) ran 3 operations: teleport body 0 (3401, 10297, 0), impulse body 36" "$S/out"
expect_grep "to see why: onescope diff -- $S/many/a/bad.ostm THEIRS.ostm" "$S/out"
# from a pipe too (spooled to a scratch file, so the step can be read again): the same lines
cat "$S/many/a/bad.ostm" | "$ONESCOPE" verify - >"$S/pipe.out" 2>"$S/pipe.err"
grep -q "^<stdin>: hash row 200 (the world after step 199): expected 0fe6732c19b0d81d" "$S/pipe.err" && ok || bad "verify - of bad.ostm: $(cat "$S/pipe.err")"
grep -q "^<stdin>: step 199 (host step 199) ran 3 operations: teleport body 0" "$S/pipe.out" && ok || bad "verify - did not name the step's operations: $(cat "$S/pipe.out")"

# JSON through a real parser; JUnit through a real XML parser
"$ONESCOPE" verify -j 2 --json --junit "$S/report.xml" -r "$S/many" "$S/missing.ostm" >"$S/v.json" 2>/dev/null
if /usr/bin/python3 - "$S/v.json" "$S/report.xml" "$N" <<'PY'; then ok; else bad "JSON or JUnit report wrong"; fi
import json, sys, xml.etree.ElementTree as ET
lines = open(sys.argv[1]).read().splitlines()
objs = [json.loads(l) for l in lines]
files, summary = objs[:-1], objs[-1]
n = int(sys.argv[2 + 1]) + 1
assert len(files) == n and summary['files'] == n, (len(files), n)
st = {o['file'].rsplit('/', 1)[-1]: o for o in files}
assert st['bad.ostm']['status'] == 'mismatch' and st['bad.ostm']['row'] == 200
# row R is the world after step R - 1 (docs/recording.md): the step is 199, not 200
assert st['bad.ostm']['step'] == 199, st['bad.ostm']
assert st['bad.ostm']['expected'] == '0fe6732c19b0d81d' and st['bad.ostm']['op_count'] == 3
assert st['bad.ostm']['ops'][0] == {'op': 'teleport', 'code': 2, 'body': 0, 'values': [3401, 10297, 0]}
assert st['junk.ostm']['status'] == 'invalid' and 'junk.ostm' in st['junk.ostm']['error']
assert st['missing.ostm']['status'] == 'invalid'
assert summary['ok'] == n - 3 and summary['mismatch'] == 1 and summary['invalid'] == 2
root = ET.parse(sys.argv[2]).getroot()
suite = root.find('testsuite')
cases = suite.findall('testcase')
assert len(cases) == n and suite.get('tests') == str(n)
assert suite.get('failures') == '1' and suite.get('errors') == '2'
by = {c.get('name').rsplit('/', 1)[-1]: c for c in cases}
assert 'hash row 200' in by['bad.ostm'].find('failure').get('message')
assert by['missing.ostm'].find('error') is not None and by['junk.ostm'].find('error') is not None
assert len(by['r1-test-2d-600.ostm']) == 0
PY

# shards: every partition covers each file exactly once
for n in 1 2 3 7; do
    : >"$S/all"
    for k in $(seq 1 $n); do
        "$ONESCOPE" verify --shard "$k/$n" -r "$S/many" 2>&1 | grep -o "$S/many[^: ]*\.ostm" | sort -u >>"$S/all"
    done
    [ "$(sort "$S/all" | uniq -d | wc -l)" = 0 ] && [ "$(sort -u "$S/all" | wc -l)" = "$N" ] && ok || bad "--shard K/$n is not a partition"
done
"$ONESCOPE" verify --shard=2/3 -q "$TD/test-2d-600.ostm" "$TD/test-field-2d.ostm" "$TD/test-field-3d.ostm" --json >"$S/sh"
grep -q test-field-2d "$S/sh" && ! grep -q test-2d-600 "$S/sh" && ok || bad "--shard 2/3 took the wrong file"
for v in 0/2 3/2 2 a/b 1/0 "1/2x"; do expect_exit 2 "$ONESCOPE" verify --shard "$v" "$TD/test-2d-600.ostm"; done
for v in 0 257 x; do expect_exit 2 "$ONESCOPE" verify -j "$v" "$TD/test-2d-600.ostm"; done

# never pass a file it did not check
expect_exit 1 "$ONESCOPE" verify "$S/many"              # a folder without -r
expect_exit 1 "$ONESCOPE" verify -r "$S/many/a/b/../../c/notes.txt" "$S/many/a/b"
mkdir -p "$S/empty"
expect_exit 1 "$ONESCOPE" verify -r "$S/empty"           # no replay in it
expect_exit 1 "$ONESCOPE" verify -- "$S/missing.ostm" "$TD/test-2d-600.ostm"
expect_exit 0 "$ONESCOPE" verify -q -j 2 -- "$TD/test-2d-600.ostm"
[ -s "$S/out" ] && bad "-q printed ok lines" || ok
expect_exit 0 "$ONESCOPE" verify "$TD/test-2d-600.ostm" --
expect_exit 0 "$ONESCOPE" -- verify "$TD/test-2d-600.ostm"
expect_exit 0 "$ONESCOPE" verify --recursive -- "$TD"

# the JUnit report follows the overwrite rule
echo old >"$S/keep.xml"
expect_exit 1 "$ONESCOPE" verify -n --junit "$S/keep.xml" "$TD/test-2d-600.ostm"
[ "$(cat "$S/keep.xml")" = old ] && ok || bad "-n replaced the report"
expect_exit 0 "$ONESCOPE" verify --junit="$S/keep.xml" "$TD/test-2d-600.ostm"
grep -q '<testcase' "$S/keep.xml" && ok || bad "report not replaced"
# A module recording (OSTM v2) on standard input or through a pipe is read once and verified as
# one, with the file's lines (it was read as a v1 replay: "version: expected 1, found 2").
python3 - "$S/m2.ostm" <<'PY'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 1, 3) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", 1)
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<IQ", 0, 2 + i) for i in range(3)))
PY
expect_exit 1 "$ONESCOPE" verify "$S/m2.ostm"
sed "s|$S/m2.ostm|<stdin>|g" "$SCRATCH/err" >"$S/m2.want"
grep -q 'hash row 0' "$S/m2.want" && ok || bad "m2.ostm: $(cat "$S/m2.want")"
expect_exit 1 sh -c '"$0" verify - <"$1"' "$ONESCOPE" "$S/m2.ostm"
cmp -s "$SCRATCH/err" "$S/m2.want" && ok || bad "verify - of a module recording: $(cat "$SCRATCH/err")"
expect_exit 1 sh -c 'cat "$1" | "$0" verify /dev/stdin' "$ONESCOPE" "$S/m2.ostm"
expect_grep 'hash row 0' "$SCRATCH/err"
finish
