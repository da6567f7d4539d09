# Every command with a file name holding ESC, a newline and a byte that is not UTF-8: every
# line it prints (stdout and stderr) is printable UTF-8 and shows the name through the one
# escape (docs/cli.md, "Names in output"); JSON is valid UTF-8 read by a strict reader, valid
# UTF-8 kept and other bytes as \xNN; JUnit and SVG are well-formed XML (xmllint, ElementTree,
# rsvg-convert) with valid UTF-8 kept.
. "$(dirname "$0")/common.sh"
TD="$SRC/testdata"
S=$SCRATCH
D=$S/d
mkdir -p "$D"
B=$'e\x1b[31mv\nl\xff'     # the name as bytes
E='e\x1B[31mv\nl\xFF'      # as every line must show it

# printable FILE...: strict UTF-8, no control character but the line ends, no C1 control or
# bidirectional override, no raw ESC.
printable() {
    python3 - "$@" <<'PY'
import sys, unicodedata
bad = 0
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    try:
        text = data.decode('utf-8', 'strict')
    except UnicodeDecodeError as e:
        print(f'{path}: not UTF-8 at byte {e.start}', file=sys.stderr); bad = 1; continue
    for n, line in enumerate(text.split('\n'), 1):
        for ch in line:
            if unicodedata.category(ch) in ('Cc', 'Cf', 'Zl', 'Zp') and ch != '\t':
                print(f'{path}:{n}: unprintable U+{ord(ch):04X}: {line!r}', file=sys.stderr)
                bad = 1
                break
sys.exit(bad)
PY
}

# run WHAT [--no-echo] CMD...: the outputs are printable, and (unless --no-echo) the escaped
# name is in them.
run() {
    local what=$1 echo=1
    shift
    if [ "$1" = --no-echo ]; then echo=0; shift; fi
    "$@" >"$S/out" 2>"$S/err" </dev/null
    printable "$S/out" "$S/err" && ok || bad "$what: unprintable output"
    if [ "$echo" = 1 ]; then
        cat "$S/out" "$S/err" | grep -qF "$E" && ok || { bad "$what: the name is not shown escaped"; cat "$S/out" "$S/err" >&2; }
    fi
}

cp "$TD/test-2d-600.ostm" "$D/$B.ostm"
cp "$TD/test-2d-ghost.ospc" "$D/$B.ospc"
python3 - "$TD/test-2d-600.ostm" "$D/$B-bad.ostm" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[1622] ^= 1  # a bit of hash row 200
open(sys.argv[2], 'wb').write(b)
PY
echo not a file of any format >"$D/$B.junk"

run "validate (valid)" "$ONESCOPE" validate "$D/$B.ostm"
grep -qF "$E.ostm: valid ostm" "$S/out" && ok || bad "validate's NAME: valid not escaped"
run "validate (invalid)" "$ONESCOPE" validate "$D/$B.junk"
run "dump ==> NAME <==" "$ONESCOPE" dump "$TD/test-2d-600.ostm" "$D/$B.ostm"
grep -qF "==> $D/$E.ostm <==" "$S/out" && ok || bad "dump's ==> NAME <== not escaped"
run "dump --json" --no-echo "$ONESCOPE" dump --json "$D/$B.ostm"
run "dump --poses --entity" "$ONESCOPE" dump --poses --entity 999 "$D/$B.ospc"
cp "$D/$B.ospc" "$D/$B-exists.ospc"
run "rewrite -n (exists)" "$ONESCOPE" rewrite -n "$D/$B.ospc" "$D/$B-exists.ospc"
expect_grep "exists, not replaced" "$S/err"
run "rewrite IN IN" "$ONESCOPE" rewrite "$D/$B.ospc" "$D/$B.ospc"
run "verify (ok)" "$ONESCOPE" verify "$D/$B.ostm"
run "verify (mismatch)" "$ONESCOPE" verify "$D/$B-bad.ostm"
grep -qF "$E-bad.ostm: step 199" "$S/out" && ok || bad "verify's step line not escaped"
grep -qF "$E-bad.ostm: to see why" "$S/out" && ok || bad "verify's diff line not escaped"
grep -qF "files failed: $D/$E-bad.ostm" "$S/err" && ok || bad "verify's summary not escaped"
# the diff command it prints names the same file when pasted into bash
cmd=$(sed -n 's/.*to see why: \(onescope diff -- .*\) THEIRS.ostm .*/\1/p' "$S/out")
word=${cmd#onescope diff -- }
got=$(bash -c "printf '%s|' $word" 2>/dev/null)
[ "$got" = "$D/$B-bad.ostm|" ] && ok || bad "verify's diff command does not name the file: $cmd"
run "verify -r" "$ONESCOPE" verify -r "$D"
run "replay -v" "$ONESCOPE" replay -v "$D/$B.ostm"
run "convert (invalid)" "$ONESCOPE" convert "$D/$B.junk" "$D/$B-conv.ospc"
run "ghost" "$ONESCOPE" ghost --from 0 --frames 10 "$D/$B.ostm" "$D/$B-ghost.ospc"
run "diff" --no-echo "$ONESCOPE" diff "$D/$B.ostm" "$TD/test-field-2d.ostm"
cp "$SRC/tests/fuzz/corpus/ostm_recover/partial-2d" "$D/$B.ostm.partial"
run "recover" "$ONESCOPE" recover "$D/$B.ostm.partial" "$D/$B-recovered.ostm"
run "recover -n (exists)" "$ONESCOPE" recover -n "$D/$B.ostm.partial" "$D/$B.ostm"
run "live serve --replay" "$ONESCOPE" live serve --replay "$D/$B.ostm" --steps 100000
run "live attach --save -n" "$ONESCOPE" live attach -n --save "$D/$B.ostm"
run "box3d-dump (invalid scene)" "$ONESCOPE" box3d-dump --steps 2 "$D/$B.junk" "$D/$B-box.ospc"
run "gen-testdata" "$ONESCOPE" gen-testdata -v "$D/$B-gen"
run "unknown command" "$ONESCOPE" "$B"
run "usage error" "$ONESCOPE" plot "$D/$B.ostm" -o "$D/$B.txt"
if "$ONESCOPE" plot "$D/$B.ostm" -o "$D/probe.svg" 2>&1 | grep -q "without cairo"; then
    echo "plot: not built with cairo, its cases not run"
else
    run "plot --field of a cache" "$ONESCOPE" plot --field density --step 0 "$D/$B.ospc" -o "$D/$B-f.svg"
    run "plot -v" "$ONESCOPE" plot -v "$D/$B.ostm" -o "$D/$B.svg"
fi

# JSON: a strict UTF-8 reader; café kept, the byte that is not UTF-8 as the text \xE9
cp "$TD/test-2d-600.ostm" "$D/café.ostm"
cp "$TD/test-2d-600.ostm" "$D/"$'caf\xe9'".ostm"
"$ONESCOPE" verify --json --junit "$S/names.xml" "$D/café.ostm" "$D/"$'caf\xe9'".ostm" "$D/$B-bad.ostm" \
    "$D/$B.junk" >"$S/names.json" 2>/dev/null
if python3 - "$S/names.json" "$S/names.xml" "$D" <<'PY'; then ok; else bad "verify --json / --junit with such names"; fi
import json, sys, xml.etree.ElementTree as ET
text = open(sys.argv[1], 'rb').read().decode('utf-8', 'strict')
objs = [json.loads(l) for l in text.splitlines()]
d = sys.argv[3]
files = [o['file'] for o in objs[:-1]]
assert files[0] == d + '/café.ostm', files[0]
assert files[1] == d + '/caf\\xE9.ostm', files[1]
assert files[2] == d + '/e\x1b[31mv\nl\\xFF-bad.ostm', files[2]
assert objs[2]['status'] == 'mismatch' and objs[3]['status'] == 'invalid'
assert objs[-1]['files'] == 4
raw = open(sys.argv[2], 'rb').read()
raw.decode('utf-8', 'strict')
names = [t.get('name') for t in ET.fromstring(raw).iter('testcase')]
assert names[0] == d + '/café.ostm', names[0]
assert names[1] == d + '/caf\ufffd.ostm', names[1]
assert names[2] == d + '/e[31mv\nl\ufffd-bad.ostm', names[2]  # ESC dropped, newline kept
PY
xmllint --noout "$S/names.xml" && ok || bad "xmllint refuses the JUnit report"

# SVG text: the library's UTF-8 rule; a surrogate, an overlong, U+FFFE and past U+10FFFF all
# give an SVG that xmllint and rsvg-convert read.
if ! "$ONESCOPE" plot "$D/$B.ostm" -o "$D/probe.svg" 2>&1 | grep -q "without cairo"; then
    for b in '\xed\xa0\x80' '\xc0\xaf' '\xef\xbf\xbe' '\xf4\x90\x80\x80' '\xff' 'caf\xc3\xa9'; do
        name=$(printf "t$b")
        cp "$TD/test-2d-600.ostm" "$D/$name.ostm"
        "$ONESCOPE" plot "$D/$name.ostm" -o "$S/t.svg" 2>"$S/err"
        xmllint --noout "$S/t.svg" 2>"$S/xmllint.err" && ok || { bad "plot of t$b: xmllint refuses the SVG"; head -3 "$S/xmllint.err" >&2; }
        if command -v rsvg-convert >/dev/null; then
            rsvg-convert "$S/t.svg" -o "$S/t.png" 2>/dev/null && ok || bad "plot of t$b: rsvg-convert refuses the SVG"
        fi
    done
    grep -q 'tcafé' "$S/t.svg" && ok || bad "plot: valid UTF-8 (café) not kept in the SVG"
fi

finish
