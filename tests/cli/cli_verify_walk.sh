#!/usr/bin/env bash
# What verify (and validate, recover) never pass silently: a replay with no step, an empty
# shard, folders behind symlinks (and link loops) under -r, a folder with no replay, and FIFOs,
# which must be reported without blocking. docs/cli.md, "verify".
. "$(dirname "$0")/common.sh"
TD=$SRC/testdata
S=$SCRATCH
to() { timeout 20 "$@"; } # a FIFO that blocks fails the test instead of hanging it

# A replay with no step: exit 1, status no_steps, a JUnit error.
"$ONESCOPE" live serve --steps 0 2>/dev/null | "$ONESCOPE" -q live attach --save "$S/zero.ostm" \
    >/dev/null 2>&1
expect_exit 1 "$ONESCOPE" verify "$S/zero.ostm"
expect_grep "no step recorded" "$S/err"
expect_exit 1 "$ONESCOPE" verify --json --junit "$S/zero.xml" "$S/zero.ostm"
expect_grep '"status": "no_steps"' "$S/out"
expect_grep '"no_steps": 1' "$S/out"
expect_grep '<error' "$S/zero.xml"

# An empty shard: exit 0, but one line on stderr, the JSON summary and a skipped JUnit case.
expect_exit 0 "$ONESCOPE" verify --shard 3/3 --json --junit "$S/shard.xml" \
    "$TD/test-2d-600.ostm" "$TD/test-field-2d.ostm"
expect_grep "shard 3/3 holds none of the 2 files" "$S/err"
expect_grep '"empty_shard": true' "$S/out"
expect_grep '<skipped' "$S/shard.xml"
if [ "$(grep -c . "$S/out")" -eq 1 ]; then ok; else bad "empty shard: more than the summary"; fi
# a shard that holds files says nothing of the kind
expect_exit 0 "$ONESCOPE" verify --shard 1/3 --json "$TD/test-2d-600.ostm"
expect_grep '"empty_shard": false, "message": null' "$S/out"

# -r follows a symlinked folder: a broken replay behind it fails the run.
mkdir -p "$S/real" "$S/top"
head -c 100 "$TD/test-2d-600.ostm" >"$S/real/broken.ostm"
ln -s ../real "$S/top/linked"
cp "$TD/test-2d-600.ostm" "$S/top/good.ostm"
expect_exit 1 "$ONESCOPE" verify -r "$S/top"
expect_grep "broken.ostm" "$S/err"
# a link loop ends: each folder once
ln -s .. "$S/real/loop"
expect_exit 1 to "$ONESCOPE" verify -r "$S/top"
n=$(grep -c "broken.ostm:" "$S/err")
if [ "$n" -eq 1 ]; then ok; else bad "link loop: broken.ostm reported $n times, wanted 1"; fi

# A folder with no replay is invalid, saying so.
mkdir -p "$S/empty"
expect_exit 1 "$ONESCOPE" verify -r "$S/empty"
expect_grep "no \*.ostm replay under this folder" "$S/err"
if grep -q "Is a directory" "$S/err"; then bad "empty folder: 'Is a directory'"; else ok; fi

# FIFOs. A named FIFO operand is read as any reader of a named pipe reads it: the command waits
# for its writer (docs/hardening.md, "Inputs are opened once"); one whose writer closes it
# without a byte is an empty input, one line. Under -r, and for recover (a partial is a regular
# file), a FIFO is refused without being opened for reading: never a hang.
mkfifo "$S/fifo.ostm" "$S/fifo.ospc.partial"
feed "$S/fifo.ostm" # a writer that writes nothing
expect_exit 1 to "$ONESCOPE" verify "$S/fifo.ostm"
wait
expect_grep "fifo.ostm" "$S/err"
mkdir -p "$S/withfifo" && mkfifo "$S/withfifo/f.ostm"
expect_exit 1 to "$ONESCOPE" verify -r "$S/withfifo"
expect_grep "f.ostm" "$S/err"
feed "$S/fifo.ostm"
expect_exit 1 to "$ONESCOPE" validate "$S/fifo.ostm"
wait
expect_grep "fifo.ostm: .*found 0 bytes" "$S/err"
expect_exit 1 to "$ONESCOPE" recover "$S/fifo.ospc.partial" "$S/out.ospc"
[ ! -e "$S/out.ospc" ] && ok || bad "recover of a FIFO wrote an output"
# a pipe with a writer still works
expect_exit 0 to "$ONESCOPE" verify - <"$TD/test-2d-600.ostm"
finish
