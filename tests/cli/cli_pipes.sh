# Every command that takes an input file, given that input as a named pipe (a FIFO) and as
# bash's process substitution <(...) (a pipe named /dev/fd/N), for an OSPC cache, an OSTM v1
# replay and an OSTM v2 module recording: the same exit code, the same output and the same
# lines as for the regular file, names aside. Every input is opened once (docs/hardening.md,
# "Inputs are opened once"): a command that opened a pipe twice found it empty the second time,
# and one that waited on a FIFO it had already drained hung. Everything runs under a timeout,
# and every FIFO writer too, so a wrong command fails this test instead of hanging it.
. "$(dirname "$0")/common.sh"
S=$SCRATCH
TD="$SRC/testdata"
T=30 # seconds: far above any run here, also on a loaded machine

cp "$TD/test-2d-ghost.ospc" "$S/c.ospc"
cp "$TD/test-2d-600.ostm" "$S/v1.ostm"
# a module recording of the test module (40 empty steps), its rows made by the viewer
python3 - "$S/m.ostm" "$S/bad2.ostm" <<'PY'
import struct, sys
def rec(inputs):
    head = b"OSTM" + struct.pack("<HHI", 2, 1, len(inputs)) + bytes([13]) + b"onescope.test"
    head += bytes([1]) + b"1" + struct.pack("<I", 6) + bytes([3, 4, 7, 0, 0, 0]) + struct.pack("<Q", 0)
    return head + b"".join(struct.pack("<I", len(i)) + i + struct.pack("<Q", 0) for i in inputs)
open(sys.argv[1], "wb").write(rec([b""] * 40))
# the container is sound, the module refuses step 1's input (operation 255)
open(sys.argv[2], "wb").write(rec([b"", b"\xff", b""]))
PY
timeout $T "$ONESCOPE" live serve "$S/m.ostm" --probe-every 10 2>/dev/null |
    timeout $T "$ONESCOPE" -q live attach --save "$S/v2.ostm" >/dev/null 2>&1
expect_exit 0 timeout $T "$ONESCOPE" verify "$S/v2.ostm"

# The names an input goes by in a line, made one: the file, the FIFO, /dev/fd/N; and the outputs.
norm() {
    sed -E -e "s#$S/##g" -e 's#/dev/fd/[0-9]+#IN#g' -e 's#(^|[^a-z0-9])(c\.ospc|v1\.ostm|v2\.ostm|bad2\.ostm|fifo)#\1IN#g' \
        -e 's#out-[fpq]#OUT#g' "$1"
}

# same FILE 'ARGS' [named]: runs onescope ARGS with @ standing for FILE, then for <(cat FILE),
# then for a FIFO fed FILE; OUT stands for an output file. The three runs must agree: exit
# code, stdout, stderr and the outputs, names made one. "named": the output keeps the input's
# base name (a plot's legend, a ghost's origin), which for <(...) is a descriptor number: that
# run's stdout and outputs are then only required to exist, and a binary output (a cache) is
# compared by its poses.
same() {
    local file=$1 args=$2 named=${3:-} mode r
    declare -A rc
    for mode in f p q; do
        rm -f "$S"/out-"$mode"*
        local a=${args//OUT/$S/out-$mode}
        case $mode in
        f) r="\"$S/$file\"" ;;
        p) r="<(cat \"$S/$file\")" ;;
        q) rm -f "$S/fifo" && mkfifo "$S/fifo" && feed "$S/fifo" "$S/$file"
           r="\"$S/fifo\"" ;;
        esac
        a=${a//@/$r} # (a literal <(...) here would run at once)
        eval "timeout $T \"\$ONESCOPE\" $a" >"$S/so-$mode" 2>"$S/se-$mode" </dev/null
        rc[$mode]=$?
        [ "$mode" = q ] && wait # the writer: gone once read, or given up by its timeout
    done
    for mode in p q; do
        local what="pipe <(...)"
        [ "$mode" = q ] && what="FIFO"
        if [ "${rc[$mode]}" != "${rc[f]}" ]; then
            bad "onescope $args, $file as a $what: exit ${rc[$mode]}, as a file ${rc[f]}: $(head -n 1 "$S/se-$mode")"
            continue
        fi
        local k same_out=yes loose=
        [ -n "$named" ] && [ "$mode" = p ] && loose=yes
        for k in so se; do
            [ -n "$loose" ] && [ $k = so ] && continue
            norm "$S/$k-f" >"$S/n-f" && norm "$S/$k-$mode" >"$S/n-$mode"
            cmp -s "$S/n-f" "$S/n-$mode" || same_out="no ($k: $(diff "$S/n-f" "$S/n-$mode" | head -n 3 | tr '\n' ' '))"
        done
        for k in "$S"/out-f*; do
            [ -e "$k" ] || continue
            local o=${k/out-f/out-$mode}
            if [ ! -s "$o" ]; then same_out="no (no ${o##*/})"; continue; fi
            [ -n "$loose" ] && continue
            if [ -n "$named" ] && [ "${k##*.}" = ospc ]; then
                timeout $T "$ONESCOPE" dump --poses "$k" >"$S/n-f" 2>&1
                timeout $T "$ONESCOPE" dump --poses "$o" >"$S/n-$mode" 2>&1
            else
                norm "$k" >"$S/n-f" && norm "$o" >"$S/n-$mode"
            fi
            cmp -s "$S/n-f" "$S/n-$mode" || same_out="no (${o##*/} differs)"
        done
        [ "$same_out" = yes ] && ok || bad "onescope $args, $file as a $what: $same_out"
    done
}

for f in c.ospc v1.ostm v2.ostm; do
    same $f "validate @"
    same $f "dump @"
    same $f "dump --json @"
    same $f "rewrite @ OUT"
    same $f "diff @ $S/$f"
    same $f "diff $S/$f @"
    same $f "diff --json @ $S/$f"
    same $f "plot @ -o OUT.svg" named
    same $f "view @ -o OUT.html" named
    same $f "view $S/$f @ --diff -o OUT.html" named
done
for f in v1.ostm v2.ostm; do
    same $f "verify @"
    same $f "verify --json @"
    same $f "replay @"
    same $f "replay --json --state @"
    same $f "module check --steps 5 @"
    same $f "ghost @ OUT.ospc --from 1 --frames 5" named
    same $f "live serve @ --probe-every 10"
done
same v1.ostm "live serve --replay @ --probe-every 10"
same v2.ostm "diff @ $S/c.ospc" named
same c.ospc "dump --poses @"
same c.ospc "convert @ OUT.anm"
# a module recording the module refuses, whichever way it comes
same bad2.ostm "validate @"
same bad2.ostm "verify @"
expect_exit 1 timeout $T "$ONESCOPE" validate "$S/bad2.ostm"
expect_grep "bad2.ostm: offset 62: step 1 input: operation: expected 1 to 5, found 255" "$S/err"

# validate - runs the very checks validate FILE runs: a refused input is refused from standard
# input and from a pipe, with the same line.
expect_exit 1 timeout $T "$ONESCOPE" validate - <"$S/bad2.ostm"
expect_grep "<stdin>: offset 62: step 1 input: operation: expected 1 to 5, found 255" "$S/err"
if cat "$S/bad2.ostm" | timeout $T "$ONESCOPE" validate - >"$S/out" 2>"$S/err"; then
    bad "cat bad2.ostm | validate - passed"
else
    expect_grep "<stdin>: offset 62: step 1 input: operation: expected 1 to 5, found 255" "$S/err"
fi
expect_exit 0 timeout $T "$ONESCOPE" validate - <"$S/v2.ostm"
expect_grep "<stdin>: valid ostm2 (module onescope.test 1: its setup and inputs checked)" "$S/out"

# A FIFO whose writer connects only once the reader waits for it: the reader is started alone,
# the writer only when the reader is seen blocked on the FIFO (its wait channel, no sleep
# deciding the order), or gone. The old reader took the missing writer for an empty input
# ("found 0 bytes") and left the writer blocked.
late_writer() {
    local file=$1 cmd=$2 want=$3
    rm -f "$S/fifo" && mkfifo "$S/fifo"
    "$ONESCOPE_BIN" $cmd "$S/fifo" >"$S/out" 2>"$S/err" &
    local pid=$! w="" deadline=$((SECONDS + T))
    # until the reader waits for a writer (blocked opening the FIFO), or is gone, or time is up
    while kill -0 $pid 2>/dev/null && [ $SECONDS -lt $deadline ]; do
        w=$(cat /proc/$pid/wchan 2>/dev/null)
        case $w in *partner* | *fifo*) break ;; esac
    done
    if ! kill -0 $pid 2>/dev/null; then
        wait $pid
        bad "$cmd FIFO: gave up before its writer connected (exit $?): $(head -n 1 "$S/err")"
        return
    fi
    case $w in
    *partner* | *fifo*) ;;
    *)
        kill $pid 2>/dev/null
        wait $pid
        if [ -r /proc/$$/wchan ]; then
            bad "$cmd FIFO: not seen waiting for its writer within $T s (wait channel '$w')"
        else
            echo "SKIPPED: $cmd FIFO with a late writer: /proc/PID/wchan is not readable here"
        fi
        return
        ;;
    esac
    timeout $T cat "$S/$file" >"$S/fifo"
    local wrote=$?
    # the reader has its bytes; it is waited for under the same deadline
    local got
    if timeout $T tail --pid=$pid -f /dev/null; then wait $pid; got=$?; else
        kill $pid 2>/dev/null; wait $pid; got=124; fi
    [ "$wrote" -eq 0 ] && ok || bad "$cmd FIFO: the late writer was left blocked (exit $wrote)"
    [ "$got" -eq "$want" ] && ok || bad "$cmd FIFO with a late writer: exit $got, wanted $want: $(head -n 1 "$S/err")"
}
late_writer c.ospc validate 0
late_writer v2.ostm validate 0
late_writer v1.ostm verify 0
late_writer v2.ostm "diff $S/v2.ostm" 0

# A FIFO whose writer closes it without writing: an empty input, one line, never a hang.
rm -f "$S/fifo" && mkfifo "$S/fifo"
feed "$S/fifo"
expect_exit 1 timeout $T "$ONESCOPE" validate "$S/fifo"
wait
expect_grep "fifo: offset 0: format: .*found 0 bytes" "$S/err"
[ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "an empty FIFO: not one line"
finish
