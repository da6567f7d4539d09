# The one argument parser (issue 13 item 6): "--" in each position, every spelling of the
# options, combined flags, global options after the command, the overwrite rule, and never
# exit 0 after skipping a named file.
. "$(dirname "$0")/common.sh"
TD="$SRC/testdata"
S=$SCRATCH
R=$TD/test-2d-600.ostm
G=$TD/test-2d-ghost.ospc
cp "$G" "$S/-dash.ospc"

# "--" before the command, between options and operands, after the operands
for args in "-- replay $R" "replay -- $R" "replay --json -- $R" "replay $R --" "-q -- dump $G" \
    "dump -- $G" "dump --json -- $G $R" "dump $G --" "diff -- $R $R" "diff --json -- $R $R" \
    "diff $R $R --" "-- diff $R $R"; do
    expect_exit 0 "$ONESCOPE" $args
done
cd "$S" || exit 1
expect_exit 0 "$ONESCOPE" dump -- -dash.ospc   # a name starting with '-' after "--"
expect_exit 2 "$ONESCOPE" dump -dash.ospc      # ... and an unknown option without it
cd - >/dev/null || exit 1
expect_exit 2 "$ONESCOPE" -- replay --json "$R"     # "--" before the command: all operands
expect_exit 2 "$ONESCOPE" -- ghost "$R" "$S/a.ospc" --from 0 --frames 2
expect_exit 0 "$ONESCOPE" ghost --from 0 --frames 2 -- "$R" "$S/g1.ospc"
expect_exit 0 "$ONESCOPE" ghost "$R" "$S/g2.ospc" --from 0 --frames 2 --
expect_exit 1 "$ONESCOPE" -q -- recover --help # "--help" is a file name here
expect_grep "^--help: " "$S/err"
expect_exit 0 "$ONESCOPE" convert -- "$G" "$S/c.anm"
expect_exit 0 "$ONESCOPE" convert "$G" "$S/c2.anm" --
expect_exit 0 "$ONESCOPE" rewrite -- "$G" "$S/rw.ospc"
expect_exit 0 "$ONESCOPE" rewrite "$G" "$S/rw2.ospc" --
expect_exit 0 "$ONESCOPE" gen-testdata -q -- "$S/td"
expect_exit 0 "$ONESCOPE" gen-testdata "$S/td2" -q --

# every spelling gives the same bytes
expect_exit 0 "$ONESCOPE" ghost "$R" "$S/s0.ospc" --from 3 --frames 4 --offset 400,0,0
for sp in "--from=3 --frames=4 --offset=400,0,0" "--from 3 --frames 4 -o 400,0,0" \
    "--frames=4 -o400,0,0 --from 3"; do
    expect_exit 0 "$ONESCOPE" ghost "$R" "$S/s1.ospc" $sp
    if cmp -s "$S/s0.ospc" "$S/s1.ospc"; then ok; else bad "ghost $sp: different bytes"; fi
done
"$ONESCOPE" diff --max 1 "$TD/test-link-left.ostm" "$TD/test-link-right.ostm" >"$S/m0"
for sp in "--max=1" "-m 1" "-m1"; do
    "$ONESCOPE" diff $sp "$TD/test-link-left.ostm" "$TD/test-link-right.ostm" >"$S/m1"
    if cmp -s "$S/m0" "$S/m1"; then ok; else bad "diff $sp: different output"; fi
done
expect_exit 0 "$ONESCOPE" convert --fps=30 --source maya "$G" "$S/f.anm"
expect_exit 0 "$ONESCOPE" convert --fps 30 --source=maya "$G" "$S/f2.anm"
if cmp -s "$S/f.anm" "$S/f2.anm"; then ok; else bad "convert spellings differ"; fi

# combined flags and global options after the command
expect_exit 0 "$ONESCOPE" replay -qv "$R"
[ -s "$S/out" ] && bad "replay -q printed step lines" || ok
expect_grep "onescope replay: exit 0 after" "$S/err"
expect_exit 0 "$ONESCOPE" replay "$R" -q
[ -s "$S/out" ] && bad "-q after the operand" || ok
expect_exit 0 "$ONESCOPE" ghost "$R" "$S/q.ospc" --from 0 --frames 2 -q
[ -s "$S/err" ] && bad "ghost -q printed" || ok
for c in replay dump diff ghost convert recover rewrite gen-testdata box3d-dump verify validate \
    "live serve" "live attach" live plot; do
    expect_exit 0 "$ONESCOPE" $c --version
    expect_grep "^onescope [0-9]" "$S/out"
    expect_exit 0 "$ONESCOPE" $c -h
done

# usage errors: exit 2, one line naming the command
for args in "replay --jso $R" "replay --json=1 $R" "ghost $R x --from" "diff -m" "replay -x $R" \
    "replay" "replay $R $R" "box3d-dump -s"; do
    expect_exit 2 "$ONESCOPE" $args
    [ "$(wc -l <"$S/err")" -eq 1 ] && ok || bad "$args: not one line"
    expect_grep "^onescope [a-z0-9-]*: " "$S/err"
done

# the overwrite rule: replaced by default, refused with -n (unchanged), never the input
echo old >"$S/keep.ospc"
expect_exit 1 "$ONESCOPE" ghost -n "$R" "$S/keep.ospc" --from 0 --frames 2
expect_grep "exists, not replaced" "$S/err"
[ "$(cat "$S/keep.ospc")" = old ] && ok || bad "-n replaced the file"
expect_exit 1 "$ONESCOPE" rewrite --no-clobber "$G" "$S/keep.ospc"
expect_exit 1 "$ONESCOPE" convert -n "$G" "$S/keep.ospc"
expect_exit 1 "$ONESCOPE" gen-testdata -n "$S/td"
expect_exit 0 "$ONESCOPE" ghost "$R" "$S/keep.ospc" --from 0 --frames 2
expect_exit 0 "$ONESCOPE" validate "$S/keep.ospc"
expect_exit 1 "$ONESCOPE" rewrite "$G" "$G"
expect_exit 2 "$ONESCOPE" replay -n "$R"   # only commands that write take -n

# verify, validate, live: "--" in each position, spellings, -q on live attach
for args in "verify -- $R" "verify $R --" "verify -j2 -- $R" "validate -- $G" "validate $G --" \
    "-- validate $G"; do
    expect_exit 0 "$ONESCOPE" $args
done
"$ONESCOPE" live serve --steps=30 --seed 4 >"$S/l1.osls"
"$ONESCOPE" live serve --seed=4 --steps 30 -- >"$S/l2.osls"
cmp -s "$S/l1.osls" "$S/l2.osls" && ok || bad "live serve spellings differ"
"$ONESCOPE" live attach -q <"$S/l1.osls" >"$S/out" 2>/dev/null && [ ! -s "$S/out" ] && ok || bad "live attach -q printed"
"$ONESCOPE" live -q attach --json <"$S/l1.osls" | python3 -c 'import json,sys; json.load(sys.stdin)' && ok || bad "attach -q --json"
echo old >"$S/keep.ostm"
expect_exit 1 "$ONESCOPE" live attach -n --save "$S/keep.ostm" <"$S/l1.osls"
[ "$(cat "$S/keep.ostm")" = old ] && ok || bad "live attach -n replaced the file"
expect_exit 2 "$ONESCOPE" live serve --dim 3
expect_exit 2 "$ONESCOPE" validate --json "$G"

# never exit 0 after skipping or failing to read a named file
expect_exit 1 "$ONESCOPE" dump "$G" "$S/missing.ospc"
expect_exit 1 "$ONESCOPE" dump -- "$G" "-missing.ospc"
expect_exit 1 "$ONESCOPE" dump --json "$S/missing.ospc" "$G"
expect_exit 1 "$ONESCOPE" diff -- "$R" "-missing.ostm"
# One decimal grammar for every real-valued option (issue 21.21): no hex, spaces, sign '+',
# inf/nan, bare '.5' or '5.', and the range the message states is the range enforced.
C="$TD/test-2d-ghost.ospc"
for v in 0x10 " 1" "1 " "+1" inf nan 1. .5 -1 1,5 1e301 1e308; do
    expect_exit 2 "$ONESCOPE" diff --position-tolerance "$v" "$C" "$C"
    expect_grep "position-tolerance.*must be a decimal number" "$S/err"
    expect_grep "1e300" "$S/err"
done
for v in 0 1e300 0.25 1e-5; do
    expect_exit 0 "$ONESCOPE" diff -q --position-tolerance "$v" "$C" "$C"
done
expect_exit 0 "$ONESCOPE" diff -q --angle-tolerance 180 "$C" "$C"
expect_exit 2 "$ONESCOPE" diff --angle-tolerance 180.5 "$C" "$C"
expect_grep "180" "$S/err"
for v in 0 " 30" 0x1e 1e7; do
    expect_exit 2 "$ONESCOPE" convert --fps "$v" "$C" "$S/fps.anm"
done
[ ! -e "$S/fps.anm" ] && ok || bad "a refused --fps wrote its output"
# an integer option refuses spaces too
expect_exit 2 "$ONESCOPE" box3d-dump --steps " 5" x.json "$S/b.ospc"
finish
