#!/usr/bin/env bash
# The springs example end to end, as a user would run it: the library installed into a scratch
# prefix, the example built against the installed package, a run recorded by the engine, then
# the installed CLI verifying, dumping and recovering it with the engine as a plug-in.
#   run.sh BUILD_DIR PREFIX CC
set -euo pipefail
build=$1 prefix=$2 cc=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$prefix" && mkdir -p "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
export LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64"
b=$prefix/springs-build
cmake -S "$here" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$b" >/dev/null
os=$prefix/bin/onescope
plugin=$b/libsprings_module.so
w=$prefix/work && mkdir -p "$w" && cd "$w"
checks=0
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
ok() { checks=$((checks + 1)); }
# expect CODE CMD...: runs CMD, keeps stdout in out.txt and stderr in err.txt, checks the exit
expect() {
    local want=$1 got=0
    shift
    "$@" >out.txt 2>err.txt || got=$?
    [ "$got" -eq "$want" ] || fail "exit $got, not $want: $* (stderr: $(cat err.txt))"
}

"$b/springs_record" run.ostm 600 64 >/dev/null
expect 0 "$os" --module "$plugin" verify run.ostm
grep -q "run.ostm: ok, 601 hash rows match" out.txt || fail "verify: $(cat out.txt)"; ok
# the option also after the command's name
expect 0 "$os" verify --module "$plugin" -q run.ostm; ok

# the planted divergence: particle 5's spring stiffer from step 250, so the world after step 250
# (row 251) is the first that differs, and step 250's input is shown as the module tells it
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify run.ostm
grep -q "hash row 251 (step 251)" err.txt || fail "planted: $(cat err.txt)"
grep -q "^onescope verify: 1 of 1 files failed: run.ostm$" err.txt && [ "$(wc -l <err.txt)" -eq 2 ] ||
    fail "planted: not the file's line and the summary: $(cat err.txt)"
grep -q "step 250 ran: impulse particle 25 " out.txt || fail "planted: $(cat out.txt)"; ok
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" verify --json run.ostm
python3 -c 'import json,sys; d=[json.loads(l) for l in open("out.txt")]; assert d[0]["status"]=="mismatch" and d[0]["row"]==251, d' ||
    fail "verify --json: $(cat out.txt)"; ok

# without the module: refused, naming the file's module and the ones there are; never "ok"
expect 1 "$os" verify run.ostm
grep -q "run.ostm: offset 12: module: expected a module loaded with --module PATH for example.springs 1, found only onescope.test 1" err.txt ||
    fail "no module: $(cat err.txt)"
! grep -q "ok" out.txt || fail "no module said ok"; ok

# validate says whether the module checked the blobs; dump names the module
expect 0 "$os" validate run.ostm
grep -q "valid ostm2 (the container only: module example.springs 1 not loaded" out.txt || fail "$(cat out.txt)"
expect 0 "$os" --module "$plugin" validate run.ostm
grep -q "valid ostm2 (module example.springs 1: its setup and inputs checked)" out.txt || fail "$(cat out.txt)"; ok
expect 0 "$os" --module "$plugin" dump run.ostm
grep -q "module           example.springs 1" out.txt || fail "dump: $(cat out.txt)"
grep -q "step 0        impulse particle 0 (-3, 4)" out.txt || fail "dump steps: $(cat out.txt)"; ok
expect 0 "$os" dump --json run.ostm
python3 -c 'import json; d=json.load(open("out.txt")); assert d["module"]=="example.springs" and d["step_count"]==600, d' ||
    fail "dump --json: $(cat out.txt)"; ok
expect 0 "$os" rewrite run.ostm again.ostm
cmp -s run.ostm again.ostm || fail "rewrite changed the bytes"; ok

# another version of the module in the file: refused naming both
python3 - <<'PY'
b = bytearray(open("run.ostm", "rb").read())
assert b[13:28] == b"example.springs" and b[29:30] == b"1"
b[29] = ord("2")
open("v2.ostm", "wb").write(bytes(b))
PY
expect 1 "$os" --module "$plugin" verify v2.ostm
grep -q "found example.springs 2, loaded example.springs 1" err.txt || fail "version: $(cat err.txt)"; ok
# an input the module refuses, at its file offset: step 0's impulse names particle 9999
python3 - <<'PY'
import struct
b = bytearray(open("run.ostm", "rb").read())
head = 12 + 1 + 15 + 1 + 1 + 4 + 8 + 8   # ids, setup blob, row 0
assert struct.unpack_from("<I", b, head)[0] == 12
struct.pack_into("<I", b, head + 4, 9999)
open("bad.ostm", "wb").write(bytes(b))
print(head + 4)
PY
expect 1 "$os" --module "$plugin" validate bad.ostm
grep -q "bad.ostm: offset 54: step 0 input: impulse: expected an entity below the count" err.txt ||
    fail "bad input: $(cat err.txt)"; ok

# a recording killed after 100 steps: recover keeps every step, and it verifies
expect 3 "$b/springs_record" --kill-after 100 killed.ostm 600 64
[ -f killed.ostm.partial ] && [ ! -e killed.ostm ] || fail "no partial after the kill"
expect 0 "$os" recover killed.ostm.partial
grep -q "kept 100 complete steps" out.txt || fail "recover: $(cat out.txt)"
expect 0 "$os" --module "$plugin" verify killed.ostm; ok
# a torn last record is dropped and said
expect 3 "$b/springs_record" --kill-after 40 torn.ostm 600 64
size=$(stat -c %s torn.ostm.partial)
truncate -s $((size - 3)) torn.ostm.partial
expect 0 "$os" recover torn.ostm.partial
grep -q "kept 39 complete steps" out.txt && grep -q "dropped a torn last record of" out.txt ||
    fail "torn: $(cat out.txt)"; ok

# diff explains the plant from the recordings alone: a run whose setup plants particle 5's
# stiffer spring from step 250, against the clean run; both go through the plug-in in one process
"$b/springs_record" --plant 250:5 planted.ostm 600 64 >/dev/null
expect 0 "$os" --module "$plugin" verify -q planted.ostm # the plant is the setup's: reproduced
expect 0 "$os" --module "$plugin" diff run.ostm run.ostm
grep -q "run.ostm and run.ostm: same" out.txt || fail "diff same: $(cat out.txt)"; ok
expect 1 "$os" --module "$plugin" diff run.ostm planted.ostm
grep -q "^setup: differs$" out.txt &&
    grep -q "^first difference: row 251 (the world after step 250)" out.txt &&
    grep -q "^stage: integrate (2 of 3)$" out.txt &&
    grep -Eq "^entity 5 \(id 5\) position.y \(m\): -?[0-9.e-]+ and -?[0-9.e-]+; [0-9]+ entit(y|ies) differ" out.txt ||
    fail "diff planted: $(cat out.txt)"; ok
expect 1 "$os" --module "$plugin" diff --json run.ostm planted.ostm
python3 -c '
import json; d = json.load(open("out.txt"))
f = d["first"]
assert d["kind"] == "recordings" and d["status"] == "different" and d["module"] == "example.springs", d
assert f["row"] == 251 and f["step"] == 250 and f["stage"]["name"] == "integrate", f
assert f["value"]["entity"] == 5 and f["value"]["name"] == "position.y" and f["value"]["a"] != f["value"]["b"], f
' || fail "diff --json: $(cat out.txt)"; ok
expect 1 "$os" diff run.ostm planted.ostm
grep -q "module: expected a module loaded with --module PATH for example.springs 1" err.txt ||
    fail "diff without the module: $(cat err.txt)"; ok

# live: the recording served as a version-2 stream (it names example.springs 1) and followed by
# attach with the plug-in; every row attach prints is the recording's hash row at that step
"$os" --module "$plugin" live serve run.ostm --probe-every 100 >run.osls
expect 0 "$os" --module "$plugin" live attach <run.osls
[ "$(wc -l <out.txt)" -eq 601 ] || fail "live attach: $(wc -l <out.txt) rows, not 601"
python3 - <<'PY' || fail "live rows differ from the recording's hash rows"
import struct
b = open("run.ostm", "rb").read()
a = b[12]; v = b[13 + a]; h = 14 + a + v
s = struct.unpack_from("<I", b, h)[0]; pos = h + 4 + s
rows = [struct.unpack_from("<Q", b, pos)[0]]; pos += 8
while pos < len(b):
    n = struct.unpack_from("<I", b, pos)[0]; pos += 4 + n
    rows.append(struct.unpack_from("<Q", b, pos)[0]); pos += 8
got = [l.split() for l in open("out.txt")]
assert len(got) == len(rows) == 601, (len(got), len(rows))
for i, (w, r) in enumerate(zip(got, rows)):
    assert w == ["step", str(i), "hash", "%016x" % r], (i, w, "%016x" % r)
PY
ok
# through a pipe, attaching late (a probe's snapshot restores the world), saving a v2 recording
"$os" --module "$plugin" live serve run.ostm | "$os" --module "$plugin" live attach -q --from 250 --save late.ostm ||
    fail "live pipe"
expect 0 "$os" --module "$plugin" verify late.ostm
grep -q "late.ostm: ok, 301 hash rows match" out.txt || fail "late save: $(cat out.txt)"; ok
# the planted divergence, in the viewer's module only: reported at the step it changes (a
# stream with the first probe only: the plant lives in the world's bytes, so a later probe's
# snapshot comparison would report it before its step, at the probe)
"$os" --module "$plugin" live serve run.ostm --probe-every 0 >once.osls
SPRINGS_PLANT=250:5 expect 1 "$os" --module "$plugin" live attach <once.osls
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "<stdin>: offset [0-9]*: hash at step 251: expected [0-9a-f]* (the host's), found [0-9a-f]* (the viewer's)$" err.txt ||
    fail "live planted: $(cat err.txt)"
[ "$(wc -l <out.txt)" -eq 251 ] && tail -n 1 out.txt | grep -q "^step 250 hash" ||
    fail "live planted rows: $(tail -n 2 out.txt)"; ok
# a stream for another module: refused naming both, without the plug-in and with another version
expect 1 "$os" live attach <run.osls
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "<stdin>: offset 8: module: expected the module the viewer runs, found example.springs 1, loaded onescope.test 1" err.txt ||
    fail "live without the module: $(cat err.txt)"; ok
python3 - <<'PY'
b = bytearray(open("run.osls", "rb").read())
assert b[8] == 15 and b[9:24] == b"example.springs" and b[24:26] == b"\x011"
b[25] = ord("2")
open("v2.osls", "wb").write(bytes(b))
PY
expect 1 "$os" --module "$plugin" live attach <v2.osls
grep -q "<stdin>: offset 8: module: expected the module the viewer runs, found example.springs 2, loaded example.springs 1" err.txt ||
    fail "live version: $(cat err.txt)"; ok
expect 1 "$os" --module "$plugin" live serve v2.ostm
grep -q "found example.springs 2, loaded example.springs 1" err.txt || fail "serve version: $(cat err.txt)"; ok
expect 0 "$os" validate run.osls
expect 0 "$os" dump --json run.osls
python3 -c 'import json; d=json.load(open("out.txt")); assert d["version"]==2 and d["module"]=="example.springs" and d["step_count"]==600, d' ||
    fail "dump osls: $(cat out.txt)"
expect 0 "$os" rewrite run.osls again.osls
cmp -s run.osls again.osls || fail "rewrite changed the stream"; ok

# the engine's own CLI (onescope_cli_main): the same commands with the module linked in, no
# --module; the archive it links exports onescope_cli_main alone (the CLI's names stay inside)
[ -x "$b/springs_cli" ] || fail "springs_cli was not built: the package has no onescope::cli"
expect 0 "$b/springs_cli" verify run.ostm
grep -q "run.ostm: ok, 601 hash rows match" out.txt || fail "springs_cli verify: $(cat out.txt)"; ok
expect 1 "$b/springs_cli" diff run.ostm planted.ostm
grep -q "^stage: integrate (2 of 3)$" out.txt || fail "springs_cli diff: $(cat out.txt)"; ok
expect 0 "$b/springs_cli" verify "$prefix/work/run.ostm" -q; ok
expect 2 "$b/springs_cli" nosuchcommand
grep -q "unknown command 'nosuchcommand'" err.txt || fail "springs_cli usage: $(cat err.txt)"; ok
globals=$(nm -g --defined-only "$prefix"/lib*/libonescope_cli.a | awk 'NF == 3 {print $3}')
[ "$globals" = "onescope_cli_main" ] || fail "libonescope_cli.a exports: $globals"; ok

# the run as a pose cache through the seam: 64 point entities in metres, 2D, frames 100..149
expect 0 "$os" --module "$plugin" ghost run.ostm g.ospc --from 100 --frames 50 --offset 2,0,0
grep -q "g.ospc: 64 entities, 50 frames from step 100" err.txt || fail "ghost: $(cat err.txt)"
expect 0 "$os" dump --json g.ospc
python3 - <<'PY' || fail "ghost dump: $(cat out.txt)"
import json
d = json.load(open("out.txt"))
assert d["entity_count"] == 64 and d["frame_count"] == 50 and d["start_step"] == 100, d
assert d["dimensions"] == 2 and d["metres_per_unit"] == 1.0 and d["unit_name"] == "m", d
assert d["module_id"] == "example.springs", d
PY
ok
expect 1 "$os" ghost run.ostm g2.ospc --from 0 --frames 1
grep -q "run.ostm: offset 12: module: expected a module loaded with --module PATH for example.springs 1" err.txt &&
    [ ! -e g2.ospc ] || fail "ghost without the module: $(cat err.txt)"; ok

# plug-ins that are not: no file, no entry symbol, another ABI; one line each, exit 1
expect 1 "$os" --module ./nowhere.so verify run.ostm
[ "$(wc -l <err.txt)" -eq 1 ] && grep -q "nowhere.so: module: expected a shared library" err.txt ||
    fail "missing plug-in: $(cat err.txt)"; ok
# a plug-in name with an escape byte: the path and dlopen's reason that repeats it, escaped
esc=$(printf 'bad\033name.so')
printf 'x' >"$esc"
expect 1 "$os" --module "./$esc" verify run.ostm
[ "$(wc -l <err.txt)" -eq 1 ] && ! grep -q "$(printf '\033')" err.txt && grep -qF 'bad\x1Bname.so' err.txt ||
    fail "escaped plug-in name: $(cat -v err.txt)"; ok
printf 'int unrelated(void) { return 1; }\n' >none.c
"$cc" -shared -fPIC none.c -o none.so
expect 1 "$os" --module ./none.so verify run.ostm
grep -q "none.so: module: expected the entry symbol onescope_module_entry, found none" err.txt ||
    fail "no entry: $(cat err.txt)"; ok
printf 'const void *onescope_module_entry(unsigned abi) { (void)abi; return 0; }\n' >abi.c
"$cc" -shared -fPIC abi.c -o abi.so
expect 1 "$os" --module ./abi.so verify run.ostm
grep -q "abi.so: module: expected a table for ABI 1" err.txt || fail "ABI: $(cat err.txt)"; ok
echo "springs example: $checks checks passed"
