# docs/cli.md, onescope.1 and onescope.bash against the real CLI: their option lists are what
# tools/onescope/gen_docs.py makes from the option tables (onescope --print-options), every
# command of 'onescope --help' has a table, each command's --help lists exactly its table; a
# drifted copy is caught (edited in a scratch tree); every documented JSON key (and type) occurs
# in real output of the testdata files, and every key of that output is documented.
. "$(dirname "$0")/common.sh"
TD="$SRC/testdata"
S=$SCRATCH
"$ONESCOPE" convert "$TD/test-2d-ghost.ospc" "$S/g.anm" -q
awk '/cat >"\$SCRATCH\/rig.pvt"/{f=1;next} /^JSON$/{f=0} f' "$SRC/tests/cli/cli_ots.sh" >"$S/rig.pvt"
awk '/cat >"\$SCRATCH\/clip.anm"/{f=1;next} /^JSON$/{if(f)exit} f' "$SRC/tests/cli/cli_ots.sh" >"$S/clip.anm"
"$ONESCOPE" live serve --steps 20 >"$S/s.osls"
"$ONESCOPE" live serve --steps 20 --link 1,0,10 >"$S/l.osls"
"$ONESCOPE" dump --json "$TD/test-2d-ghost.ospc" >"$S/ospc.json"
"$ONESCOPE" dump --json "$TD"/*.ostm >"$S/ostm.json"
"$ONESCOPE" dump --json "$S/s.osls" "$S/l.osls" >"$S/osls.json"
"$ONESCOPE" dump --json "$S/g.anm" "$S/clip.anm" >"$S/anm.json"
"$ONESCOPE" dump --json "$S/rig.pvt" >"$S/pvt.json"
# a module recording of the test module (three empty steps; the rows are not checked by dump)
python3 - "$S/m.ostm" <<'PY'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 1, 3) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", 1)
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<IQ", 0, 2 + i) for i in range(3)))
PY
# that recording served as a version-2 live stream (it names its module)
"$ONESCOPE" live serve "$S/m.ostm" --probe-every 2 >"$S/m.osls"
"$ONESCOPE" dump --json "$S/m.osls" >"$S/osls2.json"
# the same recording with an impulse on body 0 at step 1, against the first: diff's keys
python3 - "$S/m3.ostm" <<'PY'
import struct, sys
head = b"OSTM" + struct.pack("<HHI", 2, 1, 3) + bytes([13]) + b"onescope.test" + bytes([1]) + b"1"
head += struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", 1)
kick = bytes([1, 0]) + struct.pack("<iii", 100, 0, 0)
steps = [b"", kick, b""]
open(sys.argv[1], "wb").write(head + b"".join(struct.pack("<I", len(x)) + x + struct.pack("<Q", 2 + i) for i, x in enumerate(steps)))
PY
# the two dumped (m3's kick is an input the test module describes: dump's inputs[] keys)
"$ONESCOPE" dump --json "$S/m.ostm" "$S/m3.ostm" >"$S/ostm2.json"
"$ONESCOPE" diff --json "$S/m.ostm" "$S/m3.ostm" >"$S/diff2.json" || true
"$ONESCOPE" diff --json "$S/m.ostm" "$S/m.ostm" >>"$S/diff2.json"
"$ONESCOPE" replay --json --state "$TD/test-2d-600.ostm" >"$S/replay.json"
"$ONESCOPE" module check --json --steps 40 "$TD/test-2d-600.ostm" >"$S/modcheck.json"
"$ONESCOPE" replay --json "$TD/test-link-left.ostm" >>"$S/replay.json"
"$ONESCOPE" live serve --steps 20 | "$ONESCOPE" live attach --json >"$S/attach.json" 2>/dev/null
"$ONESCOPE" ghost "$TD/test-2d-600.ostm" "$S/h.ospc" --from 210 --frames 30 --offset 401,0,0 -q
for p in "test-2d-600.ostm test-2d-600.ostm" "test-link-left.ostm test-link-right.ostm" \
    "test-2d-600.ostm test-2d-ghost.ospc" "test-field-2d.ostm test-field-3d.ostm"; do
    set -- $p
    "$ONESCOPE" diff --json "$TD/$1" "$TD/$2" >>"$S/diff.json"
done
"$ONESCOPE" diff --json "$TD/test-2d-ghost.ospc" "$S/h.ospc" >>"$S/diff.json"
"$ONESCOPE" diff --json "$TD/test-2d-ghost.ospc" "$S/missing.ospc" >>"$S/diff.json" 2>/dev/null
python3 - "$TD/test-2d-600.ostm" "$S/bad.ostm" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[1622] ^= 1  # a bit of hash row 200
open(sys.argv[2], 'wb').write(b)
PY
"$ONESCOPE" verify --json "$TD/test-2d-600.ostm" "$S/bad.ostm" "$S/missing.ostm" >"$S/verify.json" 2>/dev/null
GEN="$SRC/tools/onescope/gen_docs.py"

# the committed files are what the tables give (the message says how to regenerate)
if python3 "$GEN" "$ONESCOPE_BIN" --check 2>"$S/gen.err"; then ok; else bad "docs drifted from the option tables:"; cat "$S/gen.err" >&2; fi

# the tables onescope --print-options lists are the ones the commands parse and --help prints
"$ONESCOPE" --print-options >"$S/options.json"
"$ONESCOPE" --help >"$S/help-main.txt"
python3 - "$S/options.json" >"$S/names.txt" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["commands"]: print(c["name"])
PY
while read -r c; do
    "$ONESCOPE" $c --help >"$S/help-${c// /_}.txt"
done <"$S/names.txt"
if python3 - "$S" <<'PY'; then ok; else bad "--help and --print-options disagree"; fi
import json, re, sys
S = sys.argv[1]
t = json.load(open(f"{S}/options.json"))
errors = []
listed = {l.split()[0] for l in re.search(r'^commands:\n(.*?)\n\n', open(f"{S}/help-main.txt").read(), re.S | re.M).group(1).splitlines()}
tabled = {c["name"].split()[0] for c in t["commands"]}
if listed != tabled: errors.append(f"onescope --help lists {sorted(listed)}, the tables {sorted(tabled)}")
def spell(o): return ([f"-{o['short']}"] if o["short"] else []) + [f"--{o['long']}"]
for c in t["commands"]:
    h = open(f"{S}/help-{c['name'].replace(' ', '_')}.txt").read()
    if not h.startswith(f"usage: onescope {c['name']} "): errors.append(f"{c['name']}: --help is not the table's: {h[:60]!r}")
    m = re.search(r'^options:\n(.*?)^global options', h, re.S | re.M)
    got = [w for l in (m.group(1).splitlines() if m else []) for w in re.findall(r'(--?[a-z][a-z0-9-]*)', l[:29])]
    want = [f for o in c["options"] + ([t["no_clobber"]] if c["writes"] else []) for f in spell(o)]
    if got != want: errors.append(f"{c['name']}: --help {got} vs table {want}")
    g = re.search(r'^global options.*?\n(.*?)^\'--\'', h, re.S | re.M)
    gw = [w for l in (g.group(1).splitlines() if g else []) for w in re.findall(r'(--?[a-z][a-z0-9-]*)', l[:29])]
    if gw != [f for o in t["globals"] for f in spell(o)]: errors.append(f"{c['name']}: global options {gw}")
for e in errors: print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY

# a copy that drifted is caught: a generated row edited, an option named in a hand-written line
# that no table has, a command's section naming another command's option, a missing region
T=$S/tree
drift() { # drift NAME FILE PYTHON-EXPRESSION-ON-s
    rm -rf "$T" && mkdir -p "$T/tools/onescope" "$T/docs"
    cp "$SRC/tools/onescope/onescope.1" "$SRC/tools/onescope/onescope.bash" "$T/tools/onescope/"
    cp "$SRC/docs/cli.md" "$T/docs/"
    python3 -c 'import sys; p=sys.argv[1]; s=open(p).read(); t=eval(sys.argv[2]); assert t != s, "no change"; open(p,"w").write(t)' "$T/$2" "$3" || { bad "$1: the edit did not apply"; return; }
    if python3 "$GEN" "$ONESCOPE_BIN" --check --src "$T" 2>"$S/drift.err"; then
        bad "$1: gen_docs.py --check passed"
    else
        grep -q "regenerate with 'python3 tools/onescope/gen_docs.py" "$S/drift.err" && ok || bad "$1: no regenerate hint"
    fi
}
drift "a row of docs/cli.md" docs/cli.md 's.replace("| `--frames N` | how many frames", "| `--frames N` | how many", 1)'
drift "a dropped row" docs/cli.md 's.replace("| `--entity ID` | the entity with this id only |\n", "", 1)'
drift "the man page" tools/onescope/onescope.1 's.replace("\\fB\\-\\-state\\fR", "\\fB\\-\\-states\\fR", 1)'
drift "the completion" tools/onescope/onescope.bash 's.replace(" --csv", "", 1)'
drift "an unknown option in prose" docs/cli.md 's.replace("### ghost\n\n", "### ghost\n\nSee `--no-such-option`.\n\n", 1)'
drift "another command's option" docs/cli.md 's.replace("### ghost\n\n", "### ghost\n\nSee `--max-errors`.\n\n", 1)'
drift "an unknown option in the completion" tools/onescope/onescope.bash 's.replace("== --keys ]]", "== --key ]]", 1)'
drift "a missing region" docs/cli.md 's.replace("<!-- BEGIN GENERATED options-plot", "<!-- BEGUN options-plot", 1)'

if python3 - "$SRC/docs/cli.md" "$S" <<'PY'; then ok; else bad "docs/cli.md's JSON keys drifted"; fi
import json, re, sys
doc, S = open(sys.argv[1]).read(), sys.argv[2]
errors = []
def section(title):
    m = re.search(r'^#{3} ' + re.escape(title) + r'\n(.*?)(?=^#{2,3} |\Z)', doc, re.S | re.M)
    assert m, title
    return m.group(1)
def typ(v):
    return {bool: 'boolean', int: 'integer', float: 'number', str: 'string', type(None): 'null', list: 'array', dict: 'object'}[type(v)]
def walk(v, p, out):
    if isinstance(v, dict):
        for k, c in v.items():
            q = p + '.' + k if p else k
            out.setdefault(q, set()).add(typ(c)); walk(c, q, out)
    elif isinstance(v, list):
        for c in v: walk(c, p + '[]', out)
def keys(name):
    txt, out, i, dec = open(f'{S}/{name}.json').read(), {}, 0, json.JSONDecoder()
    while True:
        while i < len(txt) and txt[i].isspace(): i += 1
        if i >= len(txt): return out
        v, i = dec.raw_decode(txt, i); walk(v, '', out)
for title, name in [('dump --json of an OSPC pose cache', 'ospc'), ('dump --json of an OSTM replay', 'ostm'),
                    ('dump --json of an OSLS live stream', 'osls'), ('dump --json of an OTS .anm clip', 'anm'),
                    ('dump --json of an OSTM v2 module recording', 'ostm2'),
                    ('dump --json of an OSLS v2 live stream', 'osls2'),
                    ('dump --json of an OTS .pvt rig', 'pvt'), ('replay --json', 'replay'),
                    ('live attach --json', 'attach'), ('diff --json', 'diff'), ('verify --json', 'verify'),
                    ('diff --json of two module recordings', 'diff2'), ('module check --json', 'modcheck')]:
    documented = {k: set(t.split(' or ')) for k, t in re.findall(r'^\| `([^`]+)` \| ([a-z ]+?) \|$', section(title), re.M)}
    real = keys(name)
    for k in sorted(set(documented) ^ set(real)):
        errors.append(f"{title}: {k} {'documented, not in the output' if k in documented else 'in the output, not documented'}")
    for k in set(documented) & set(real):
        allowed = documented[k] | ({'integer'} if 'number' in documented[k] else set())
        if not real[k] <= allowed: errors.append(f"{title}: {k} is {sorted(real[k])}, documented {sorted(documented[k])}")
for e in errors: print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY

# the man page renders without warnings and names every command; the completion loads and completes
if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z "$SRC/tools/onescope/onescope.1" 2>"$S/groff.err"
    [ ! -s "$S/groff.err" ] && ok || { bad "groff warnings"; cat "$S/groff.err" >&2; }
else
    grep -q '^\.TH ONESCOPE 1' "$SRC/tools/onescope/onescope.1" && ok || bad "no .TH"
fi
for c in validate dump "dump --poses" rewrite verify replay convert box3d-dump "live serve" \
    "live attach" ghost diff recover plot gen-testdata "module check"; do
    c=${c//-/\\-}
    grep -qxF ".SS $c" "$SRC/tools/onescope/onescope.1" && ok || bad "onescope.1 lacks $c"
done
comp() { bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _onescope; echo "${COMPREPLY[*]}"' _ "$SRC/tools/onescope/onescope.bash" "$@"; }
for t in "gh=ghost" "ghost --fr=--from --frames" "pl=plot" "plot --wi=--width" "dump --po=--poses" \
    "dump x.ospc --poses --fr=--frames" "dump --poses --c=--csv" "dump --c=" "live se=serve" \
    "live serve --pro=--probe-every" "live attach --sa=--save" "rewrite --no=--no-clobber" \
    "replay --no=" "plot --field d=density" "-=-q --quiet -v --verbose -h --help --version --module"; do
    words=${t%%=*} want=${t#*=}
    got=$(comp onescope $words)
    [ "$got" = "$want" ] && ok || bad "completion of '$words' gave '$got', wanted '$want'"
done
finish
