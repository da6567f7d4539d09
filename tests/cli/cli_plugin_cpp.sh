# A module plug-in written in C++ (tests/plugin_cpp/plugin.cpp, issue 38 item 19) loads into the
# stock CLI and verifies its recording: module.h's prototype gives the entry C linkage. The same
# source with the entry in a namespace exports only a C++ name: one line that says so. And the
# CLI's refusals of a plug-in's id (issue 38 item 18): a built-in module's id, and a second
# --module with an id already loaded, each one line, exit 1, before any input is read.
# $4 the plug-in, $5 the plug-in whose entry has a C++ name.
. "$(dirname "$0")/common.sh"
PLUGIN=$4
MANGLED=$5
S=$SCRATCH

# five steps of the counter (the plug-in's header comment): total += bytes + 1, steps += 1,
# hash = total * 0x9e3779b97f4a7c15 + steps; input i is i bytes of value i
python3 - "$S/run.ostm" "$S/long.ostm" <<'PY'
import struct, sys
M = (1 << 64) - 1
def rec(inputs):
    head = b"OSTM" + struct.pack("<HHI", 2, 1, len(inputs)) + bytes([11]) + b"cpp.counter"
    head += bytes([1]) + b"1" + struct.pack("<I", 0)
    total, steps = 0, 0
    out = head + struct.pack("<Q", 0)
    for i in inputs:
        total += sum(i) + 1
        steps += 1
        out += struct.pack("<I", len(i)) + i + struct.pack("<Q", (total * 0x9E3779B97F4A7C15 + steps) & M)
    return out
open(sys.argv[1], "wb").write(rec([bytes([i] * i) for i in range(5)]))
open(sys.argv[2], "wb").write(rec([b"", bytes(9)]))  # step 1's input: 9 bytes, one too many
PY

expect_exit 0 "$ONESCOPE" --module "$PLUGIN" verify "$S/run.ostm"
expect_grep "run.ostm: ok, 6 hash rows match" "$S/out"
# its determinism as module check sees it (the other checks need a snapshot)
expect_exit 0 "$ONESCOPE" --module "$PLUGIN" module check "$S/run.ostm"
expect_grep "determinism: passed over 5 steps" "$S/out"
# its check_input's refusal (onescope_module_fail, called from C++) at the file's offset: the
# ninth byte of step 1's input (head 30, row 0 8, step 0's record 12, step 1's length 4, +8)
expect_exit 1 "$ONESCOPE" --module "$PLUGIN" validate "$S/long.ostm"
expect_grep "long.ostm: offset 62: step 1 input: input: expected at most 8 bytes, found more" "$S/err"

# the entry in a namespace: "found none", with the C++ name and the hint
expect_exit 1 "$ONESCOPE" --module "$MANGLED" verify "$S/run.ostm"
expect_grep "module: expected the entry symbol onescope_module_entry, found none, only the C++ name _ZN6plugin21onescope_module_entryEj (give it C linkage: include onescope/module.h)" "$S/err"
[ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "mangled: not one line: $(cat "$S/err")"
[ -s "$S/out" ] && bad "mangled: printed a result" || ok

# a built-in module's id: refused, whatever the command
for id in onescope.test onescope.box3d; do
    CPP_PLUGIN_ID=$id expect_exit 1 "$ONESCOPE" --module "$PLUGIN" verify "$S/run.ostm"
    expect_grep "module: expected an id of its own, found $id, the id of the library's" "$S/err"
    [ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "$id: not one line: $(cat "$S/err")"
done
# the same plug-in twice (and through a link): the second is refused
ln -sf "$PLUGIN" "$S/again.so"
for second in "$PLUGIN" "$S/again.so"; do
    expect_exit 1 "$ONESCOPE" --module "$PLUGIN" verify --module "$second" "$S/run.ostm"
    expect_grep "module: expected one module per id, found cpp.counter already loaded from" "$S/err"
    [ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "twice: not one line: $(cat "$S/err")"
    [ -s "$S/out" ] && bad "twice: printed a result" || ok
done
finish
