# docs/cli.md, onescope.1 and onescope.bash against the real CLI: each command's --help lists
# exactly the options docs/cli.md lists; every documented JSON key (and type) occurs in real
# output of the testdata files, and every key of that output is documented.
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
"$ONESCOPE" replay --json --state "$TD/test-2d-600.ostm" >"$S/replay.json"
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
for c in validate dump rewrite verify replay convert box3d-dump "live serve" "live attach" ghost \
    diff recover gen-testdata; do
    "$ONESCOPE" $c --help >"$S/help-${c/ /-}.txt"
done

if python3 - "$SRC/docs/cli.md" "$S" "$SRC/tools/onescope/onescope.bash" <<'PY'; then ok; else bad "docs/cli.md, onescope.bash or --help drifted"; fi
import json, re, sys
doc, S, comp = open(sys.argv[1]).read(), sys.argv[2], open(sys.argv[3]).read()
errors = []
def section(title):
    m = re.search(r'^#{3} ' + re.escape(title) + r'\n(.*?)(?=^#{2,3} |\Z)', doc, re.S | re.M)
    assert m, title
    return m.group(1)
def doc_options(text):
    return {o for row in re.findall(r'^\| (`-.*?) \|', text, re.M) for o in re.findall(r'`(--?[a-z][a-z0-9-]*)', row)}
def help_options(cmd):
    h = open(f"{S}/help-{cmd.replace(' ', '-')}.txt").read()
    m = re.search(r'^options:\n(.*?)^global options', h, re.S | re.M)
    if not m:  # a command not yet on the parser: every --opt its help mentions
        return None, set(re.findall(r'(--[a-z][a-z0-9-]*)', h)) - {'--help'}
    return True, {o for l in m.group(1).splitlines() for o in re.findall(r'(--?[a-z][a-z0-9-]*)', l[:29])}
for cmd in ['validate', 'dump', 'rewrite', 'verify', 'replay', 'convert', 'box3d-dump', 'ghost', 'diff', 'recover', 'gen-testdata', 'live serve', 'live attach']:
    if cmd.startswith('live'):
        sec = section('live')
        sec = sec.split('`live attach` (writes')[cmd == 'live attach']
    else:
        sec = section(cmd)
    want = doc_options(sec)
    parsed, got = help_options(cmd)
    if parsed:
        got -= {'-n', '--no-clobber'}  # the overwrite rule's option, documented once
        if got != want: errors.append(f"{cmd}: --help {sorted(got)} vs docs {sorted(want)}")
    elif not want <= got:
        errors.append(f"{cmd}: docs list {sorted(want - got)} that --help does not")
    words = re.search(r'^\s*' + re.escape(cmd.split()[0]) + r'\) opts="(.*?)"', comp, re.M).group(1).split()
    if not want <= set(words): errors.append(f"{cmd}: completion lacks {sorted(want - set(words))}")
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
                    ('dump --json of an OTS .pvt rig', 'pvt'), ('replay --json', 'replay'),
                    ('live attach --json', 'attach'), ('diff --json', 'diff'), ('verify --json', 'verify')]:
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
for c in validate dump rewrite verify replay convert box3d-dump live ghost diff recover gen-testdata; do
    grep -qF ".SS ${c//-/\\-}" "$SRC/tools/onescope/onescope.1" && ok || bad "onescope.1 lacks $c"
done
out=$(bash -c '. "$1"; COMP_WORDS=(onescope gh); COMP_CWORD=1; _onescope; echo "${COMPREPLY[*]}";
    COMP_WORDS=(onescope ghost --fr); COMP_CWORD=2; _onescope; echo "${COMPREPLY[*]}"' _ "$SRC/tools/onescope/onescope.bash")
[ "$out" = "ghost
--from --frames" ] && ok || bad "completion gave: $out"
finish
