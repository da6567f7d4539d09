# CLI contract for pose caches: validate, dump, rewrite.
. "$(dirname "$0")/common.sh"

# Build a tiny valid cache with printf: 1 entity, 1 frame, 3D.
hdr='OSPC\x01\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00'
hdr="$hdr"'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
texts='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
entity='\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x80\x3f\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00b'
pose='\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x3f'
printf "$hdr$texts$entity$pose" >"$SCRATCH/good.ospc"
printf 'OSPC\x01\x00\x03\x00' >"$SCRATCH/flags.ospc"

# A richer cache: 2D, 3 entities (one with a UTF-8 name), 4 frames, an absent entity whose
# ignored floats hold junk, -0.0 values, texts in every field; and broken copies of it.
python3 - "$SCRATCH" <<'PY'
import struct, sys
d = sys.argv[1]
def text(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack('<H', len(b)) + b
out = b'OSPC' + struct.pack('<HHBBHIIqd', 1, 0, 2, 0, 0, 3, 4, 7, 0.001)
for t in ['mm', 'demo.module', '0.1.0', 'scène "A"', 'run.ostm', 'label\twith tab']:
    out += text(t)
ents = [(5, 0, (0, 0, 0), 'p'), (9, 1, (0.5, 0, 0), 'ball \u00e9\u20ac'), (12, 3, (0.1, 0.4, -0.0), '')]
for i, s, sz, n in ents:
    out += struct.pack('<QB3xfff', i, s, *sz) + text(n)
poses = b''
for f in range(4):
    for e in range(3):
        if f == 2 and e == 1:
            poses += struct.pack('<I', 0x7fc00001) + struct.pack('<6I', *[0xffffffff, 0x7f800000, 1, 2, 3, 0xff800000])
        else:
            poses += struct.pack('<7f', f + 0.25, -0.0, e, 0, 0, 0, 0 if e == 2 else 1)
open(d + '/rich.ospc', 'wb').write(out + poses)
open(d + '/trailing.ospc', 'wb').write(out + poses + b'\0')
open(d + '/short.ospc', 'wb').write(out + poses[:-1])
bad = bytearray(out + poses)
struct.pack_into('<f', bad, len(out) + 28 * 5 + 12, float('inf'))   # frame 1 entity 2 rotation x
open(d + '/inf.ospc', 'wb').write(bad)
bad = bytearray(out + poses)
bad[out.index('scène'.encode()) + 1] = 0xff   # the 'c' of the scene text
open(d + '/utf8.ospc', 'wb').write(bad)
PY
[ -s "$SCRATCH/rich.ospc" ] && ok || bad "python could not build rich.ospc"

# validate: exit codes and one line per bad file, naming it and the offset
expect_exit 0 "$ONESCOPE" validate "$SCRATCH/good.ospc"
expect_grep "valid ospc" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" validate "$SCRATCH/good.ospc" "$SCRATCH/rich.ospc"
[ "$(wc -l <"$SCRATCH/out")" -eq 2 ] && ok || bad "validate of two good files did not print two lines"
expect_exit 0 "$ONESCOPE" -q validate "$SCRATCH/rich.ospc"
[ ! -s "$SCRATCH/out" ] && ok || bad "-q still printed"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/good.ospc" "$SCRATCH/flags.ospc" "$SCRATCH/rich.ospc"
expect_grep "flags.ospc: offset 6: flags: expected 0, found 3" "$SCRATCH/err"
[ "$(wc -l <"$SCRATCH/err")" -eq 1 ] && ok || bad "one bad file gave more than one line"
expect_grep "rich.ospc: valid ospc" "$SCRATCH/out"   # goes on after the bad file
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/trailing.ospc" "$SCRATCH/short.ospc" "$SCRATCH/inf.ospc" "$SCRATCH/utf8.ospc"
[ "$(wc -l <"$SCRATCH/err")" -eq 4 ] && ok || bad "four bad files did not give four lines"
size=$(wc -c <"$SCRATCH/rich.ospc")
expect_grep "trailing.ospc: offset $size: poses: expected end of file after 336 pose bytes, found 1 more bytes" "$SCRATCH/err"
expect_grep "short.ospc: offset $((size - 336)): poses: expected 336 bytes (4 frames x 3 entities x 28), found 335 bytes" "$SCRATCH/err"
expect_grep "inf.ospc: offset $((size - 336 + 152)): frame 1 entity 2 rotation x: expected a finite number (NaN only in position x, for an absent entity), found inf" "$SCRATCH/err"
expect_grep "utf8.ospc: offset [0-9]*: scene: expected valid UTF-8, found byte 0xff" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/missing.ospc"
expect_grep "missing.ospc" "$SCRATCH/err"
printf 'XXXX' >"$SCRATCH/other.bin"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/other.bin"
expect_grep "other.bin: offset 0: format: expected a known format" "$SCRATCH/err"
expect_exit 0 "$ONESCOPE" validate - <"$SCRATCH/rich.ospc"
expect_grep "<stdin>: valid ospc" "$SCRATCH/out"
expect_exit 1 "$ONESCOPE" validate - <"$SCRATCH/flags.ospc"
expect_grep "<stdin>: offset 6: flags" "$SCRATCH/err"
expect_exit 2 "$ONESCOPE" validate
expect_exit 0 "$ONESCOPE" validate --help
expect_grep "usage: onescope validate" "$SCRATCH/out"

# dump: text and JSON with snake_case keys
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/good.ospc" --json
expect_grep '"entity_count": 1' "$SCRATCH/out"
expect_grep '"metres_per_unit": 0' "$SCRATCH/out"
expect_grep '"name": "b"' "$SCRATCH/out"
if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$SCRATCH/out"; then ok; else bad "dump --json is not JSON"; fi
expect_exit 0 "$ONESCOPE" dump --json "$SCRATCH/rich.ospc"
if python3 - "$SCRATCH/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = ['format', 'version', 'flags', 'dimensions', 'entity_count', 'frame_count', 'start_step',
        'metres_per_unit', 'unit_name', 'module_id', 'library_version', 'scene', 'replay', 'label',
        'present_pose_count', 'entities']
missing = [k for k in keys if k not in d]
assert not missing, missing
assert d['format'] == 'ospc' and d['version'] == 1 and d['flags'] == 0
assert d['dimensions'] == 2 and d['entity_count'] == 3 and d['frame_count'] == 4
assert d['start_step'] == 7 and d['metres_per_unit'] == 0.001
assert d['scene'] == 'scène "A"' and d['label'] == 'label\twith tab' and d['replay'] == 'run.ostm'
assert d['present_pose_count'] == 11
assert [e['id'] for e in d['entities']] == [5, 9, 12]
assert [e['shape'] for e in d['entities']] == ['point', 'sphere', 'capsule']
assert d['entities'][1]['name'] == 'ball \u00e9\u20ac'
assert d['entities'][1]['size'] == [0.5, 0, 0]
for e in d['entities']:
    assert sorted(e) == ['id', 'name', 'shape', 'size'], sorted(e)
PY
then ok; else bad "dump --json of rich.ospc"; fi
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/good.ospc"
expect_grep "entities *1" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" dump - <"$SCRATCH/rich.ospc"
expect_grep 'label *"label\\twith tab"' "$SCRATCH/out"
python3 -c 'import struct,sys; b=bytearray(open(sys.argv[1],"rb").read()); struct.pack_into("<q",b,20,2**63-1); open(sys.argv[2],"wb").write(b)' \
    "$SCRATCH/rich.ospc" "$SCRATCH/maxstep.ospc"
# the last step past INT64_MAX is refused by the format's step rule (issue 21.7), at offset 20
expect_exit 1 "$ONESCOPE" dump "$SCRATCH/maxstep.ospc"
expect_grep "maxstep.ospc: offset 20: start step: expected at most 9223372036854775804" "$SCRATCH/err"
expect_exit 1 "$ONESCOPE" validate "$SCRATCH/maxstep.ospc"
expect_exit 1 "$ONESCOPE" dump "$SCRATCH/inf.ospc"
expect_grep "inf.ospc: offset" "$SCRATCH/err"
[ ! -s "$SCRATCH/out" ] && ok || bad "dump of an invalid file printed something on stdout"
expect_exit 2 "$ONESCOPE" dump
expect_exit 2 "$ONESCOPE" dump "$SCRATCH/good.ospc" --yaml
# dump takes many files (issue 13): each after a "==> FILE <==" line
expect_exit 0 "$ONESCOPE" dump "$SCRATCH/good.ospc" "$SCRATCH/rich.ospc"
expect_grep "==> .*rich.ospc <==" "$SCRATCH/out"
expect_exit 0 "$ONESCOPE" dump --help

# rewrite: byte-exact, atomic, never for invalid input, never onto itself, - for stdio
expect_exit 0 "$ONESCOPE" rewrite "$SCRATCH/good.ospc" "$SCRATCH/copy.ospc"
if cmp -s "$SCRATCH/good.ospc" "$SCRATCH/copy.ospc"; then ok; else bad "rewrite changed bytes"; fi
expect_exit 0 "$ONESCOPE" rewrite "$SCRATCH/rich.ospc" "$SCRATCH/rich-copy.ospc"
if cmp -s "$SCRATCH/rich.ospc" "$SCRATCH/rich-copy.ospc"; then ok; else bad "rewrite of rich.ospc changed bytes"; fi
cp "$SCRATCH/good.ospc" "$SCRATCH/over.ospc"
expect_exit 0 "$ONESCOPE" rewrite "$SCRATCH/rich.ospc" "$SCRATCH/over.ospc"   # replaces an existing OUT
if cmp -s "$SCRATCH/rich.ospc" "$SCRATCH/over.ospc"; then ok; else bad "rewrite did not replace OUT"; fi
for f in flags trailing short inf utf8; do
    expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/$f.ospc" "$SCRATCH/never-$f.ospc"
    expect_grep "$f.ospc: offset" "$SCRATCH/err"
    if [ ! -e "$SCRATCH/never-$f.ospc" ]; then ok; else bad "rewrite of $f.ospc created OUT"; fi
done
cp "$SCRATCH/rich.ospc" "$SCRATCH/keep.ospc"
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/inf.ospc" "$SCRATCH/keep.ospc"
if cmp -s "$SCRATCH/rich.ospc" "$SCRATCH/keep.ospc"; then ok; else bad "a failed rewrite touched an existing OUT"; fi
if [ -z "$(ls -a "$SCRATCH" | grep tmp)" ]; then ok; else bad "rewrite left a temporary file behind"; fi
cp "$SCRATCH/rich.ospc" "$SCRATCH/same.ospc"
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/same.ospc" "$SCRATCH/same.ospc"
expect_grep "refusing to overwrite the input .*same.ospc" "$SCRATCH/err"
ln -sf same.ospc "$SCRATCH/link.ospc"
expect_exit 1 "$ONESCOPE" rewrite "$SCRATCH/same.ospc" "$SCRATCH/link.ospc"
if cmp -s "$SCRATCH/rich.ospc" "$SCRATCH/same.ospc"; then ok; else bad "rewrite onto itself touched it"; fi
expect_exit 0 "$ONESCOPE" rewrite - - <"$SCRATCH/rich.ospc"
if cmp -s "$SCRATCH/rich.ospc" "$SCRATCH/out"; then ok; else bad "rewrite - - changed bytes"; fi
expect_exit 0 "$ONESCOPE" rewrite - "$SCRATCH/from-stdin.ospc" <"$SCRATCH/rich.ospc"
if cmp -s "$SCRATCH/rich.ospc" "$SCRATCH/from-stdin.ospc"; then ok; else bad "rewrite - OUT changed bytes"; fi
expect_exit 0 "$ONESCOPE" rewrite "$SCRATCH/rich.ospc" -
if cmp -s "$SCRATCH/rich.ospc" "$SCRATCH/out"; then ok; else bad "rewrite IN - changed bytes"; fi
expect_exit 1 "$ONESCOPE" rewrite - - <"$SCRATCH/short.ospc"
[ ! -s "$SCRATCH/out" ] && ok || bad "rewrite of invalid stdin wrote to stdout"
expect_grep "<stdin>: offset" "$SCRATCH/err"
expect_exit 2 "$ONESCOPE" rewrite "$SCRATCH/good.ospc"
expect_exit 2 "$ONESCOPE" rewrite a b c
expect_exit 0 "$ONESCOPE" rewrite --help
expect_exit 2 "$ONESCOPE" frobnicate
# unknown options are usage errors (exit 2), "--" ends the options
expect_exit 2 "$ONESCOPE" validate -x "$SCRATCH/rich.ospc"
expect_grep "unknown option '-x'" "$SCRATCH/err"
expect_exit 2 "$ONESCOPE" validate --json "$SCRATCH/rich.ospc"
expect_exit 2 "$ONESCOPE" rewrite --bogus "$SCRATCH/rich.ospc" "$SCRATCH/x.ospc"
[ ! -e "$SCRATCH/x.ospc" ] && ok || bad "rewrite with a bad option wrote OUT"
cp "$SCRATCH/rich.ospc" "$SCRATCH/-dash.ospc"
expect_exit 0 "$ONESCOPE" validate -- "$SCRATCH/rich.ospc" "$SCRATCH/-dash.ospc"
cd "$SCRATCH" || exit 1
expect_exit 0 "$ONESCOPE" rewrite -- -dash.ospc dash-copy.ospc
cd - >/dev/null || exit 1
if cmp -s "$SCRATCH/rich.ospc" "$SCRATCH/dash-copy.ospc"; then ok; else bad "rewrite -- IN OUT"; fi

finish
