# The one output rule (docs/cli.md, "Outputs"), for every command and every output option: an
# output that is an input (the same file by device and inode: directly, through a symbolic
# link, found by verify -r, or standard input's file) is refused with exit 1 before any work
# (verify's --junit report, an option naming an input: a usage error, exit 2, as docs/cli.md
# says), and the input is left byte for byte as it was. --json and --junit - cannot share stdout.
. "$(dirname "$0")/common.sh"
TD="$SRC/testdata"
S=$SCRATCH

# refused NAME INPUT CMD...: exit $want (1 unless set), one "refusing to overwrite" line,
# INPUT unchanged.
want=1
refused() {
    local what=$1 input=$2
    shift 2
    cp "$input" "$S/before"
    "$@" >"$S/out" 2>"$S/err" </dev/null
    local rc=$?
    [ "$rc" -eq "$want" ] && ok || bad "$what: exit $rc, wanted $want"
    grep -q "refusing to overwrite the input" "$S/err" && ok || { bad "$what: no refusal line"; cat "$S/err" >&2; }
    [ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "$what: not one line on stderr"
    cmp -s "$S/before" "$input" && ok || bad "$what: the input was changed"
}

cp "$TD/test-2d-600.ostm" "$S/run.ostm"
ln -s run.ostm "$S/link.ostm"
cp "$TD/test-2d-ghost.ospc" "$S/cache.ospc"
ln -s cache.ospc "$S/cache-link.ospc"

# verify --junit: the headline bug (the replay became the report, exit 0); a usage error
want=2
refused "verify --junit IN" "$S/run.ostm" "$ONESCOPE" verify "$S/run.ostm" --junit "$S/run.ostm"
refused "verify --junit LINK" "$S/run.ostm" "$ONESCOPE" verify "$S/run.ostm" --junit "$S/link.ostm"
refused "verify LINK --junit IN" "$S/run.ostm" "$ONESCOPE" verify "$S/link.ostm" --junit "$S/run.ostm"
mkdir -p "$S/tree/sub"
cp "$TD/test-2d-600.ostm" "$S/tree/sub/run.ostm"
cd "$S/tree" || exit 1
refused "verify -r . --junit ./sub/run.ostm" "$S/tree/sub/run.ostm" \
    "$ONESCOPE" verify -r . --junit ./sub/run.ostm
cd - >/dev/null || exit 1
# an input of another shard is an input too
refused "verify --shard 2/2 --junit (shard 1's file)" "$S/run.ostm" \
    "$ONESCOPE" verify --shard 2/2 "$S/run.ostm" "$TD/test-field-2d.ostm" --junit "$S/run.ostm"
# standard input's file
cp "$S/run.ostm" "$S/before"
"$ONESCOPE" verify - --junit "$S/run.ostm" <"$S/run.ostm" >"$S/out" 2>"$S/err"
[ $? -eq 2 ] && cmp -s "$S/before" "$S/run.ostm" && ok || bad "verify - --junit (stdin's file) not refused"
# refused before any work: no result line
[ ! -s "$S/out" ] && ok || bad "verify printed results before refusing its report"
# --json and --junit - both on standard output
expect_exit 2 "$ONESCOPE" verify --json --junit - "$S/run.ostm"
expect_grep "cannot both take standard output" "$S/err"
# the rule lets a distinct report through
expect_exit 0 "$ONESCOPE" verify "$S/run.ostm" --junit "$S/report.xml"
xmllint --noout "$S/report.xml" && ok || bad "the report is not XML"

# rewrite, convert, ghost, box3d-dump, recover: OUT operands
want=1
refused "rewrite IN IN" "$S/cache.ospc" "$ONESCOPE" rewrite "$S/cache.ospc" "$S/cache.ospc"
refused "rewrite IN LINK" "$S/cache.ospc" "$ONESCOPE" rewrite "$S/cache.ospc" "$S/cache-link.ospc"
refused "convert IN LINK" "$S/cache.ospc" "$ONESCOPE" convert "$S/cache.ospc" "$S/cache-link.ospc"
cp "$S/run.ostm" "$S/run-as.ospc"
ln -s run-as.ospc "$S/run-as-link.ospc"
refused "ghost IN IN" "$S/run-as.ospc" "$ONESCOPE" ghost --from 0 --frames 10 "$S/run-as.ospc" "$S/run-as.ospc"
refused "ghost IN LINK" "$S/run-as.ospc" "$ONESCOPE" ghost --from 0 --frames 10 "$S/run-as.ospc" "$S/run-as-link.ospc"
printf '{"bodies": [{"kind": "sphere", "position": [0, 1, 0], "size": [0.5, 0, 0]}]}' >"$S/scene.ospc"
ln -s scene.ospc "$S/scene-link.ospc"
refused "box3d-dump IN LINK" "$S/scene.ospc" "$ONESCOPE" box3d-dump --steps 2 "$S/scene.ospc" "$S/scene-link.ospc"
cp "$SRC/tests/fuzz/corpus/ostm_recover/partial-2d" "$S/p.ostm.partial"
ln -s p.ostm.partial "$S/p-link.ostm"
refused "recover P P" "$S/p.ostm.partial" "$ONESCOPE" recover "$S/p.ostm.partial" "$S/p.ostm.partial"
refused "recover P LINK" "$S/p.ostm.partial" "$ONESCOPE" recover "$S/p.ostm.partial" "$S/p-link.ostm"

# plot -o (skipped only where plot is not built: it says so)
if "$ONESCOPE" plot --help >/dev/null 2>&1 && ! "$ONESCOPE" plot "$S/run.ostm" -o "$S/probe.svg" 2>&1 | grep -q "without cairo"; then
    cp "$S/run.ostm" "$S/run.svg"
    ln -s run.svg "$S/run-link.svg"
    refused "plot IN -o IN" "$S/run.svg" "$ONESCOPE" plot "$S/run.svg" -o "$S/run.svg"
    refused "plot IN -o LINK" "$S/run.svg" "$ONESCOPE" plot "$S/run.svg" -o "$S/run-link.svg"
    refused "plot A B -o B" "$S/run.svg" "$ONESCOPE" plot "$S/run.ostm" "$S/run.svg" -o "$S/run-link.svg"
else
    echo "plot: not built with cairo, its -o cases not run"
fi

# live attach --save: the input is standard input; OUT may not be the file it comes from
"$ONESCOPE" live serve --replay "$TD/test-2d-600.ostm" >"$S/stream.ostm" 2>/dev/null
ln -s stream.ostm "$S/stream-link.ostm"
for out in "$S/stream.ostm" "$S/stream-link.ostm"; do
    cp "$S/stream.ostm" "$S/before"
    "$ONESCOPE" live attach --save "$out" <"$S/stream.ostm" >"$S/out" 2>"$S/err"
    rc=$?
    [ "$rc" -eq 1 ] && grep -q "refusing to overwrite" "$S/err" && cmp -s "$S/before" "$S/stream.ostm" &&
        ok || bad "live attach --save $out (stdin's file): exit $rc"
done

finish
