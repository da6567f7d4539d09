# Sourced by the CLI test scripts: $1 the onescope binary, $2 a scratch folder, $3 the source tree.
# ONESCOPE_WRAPPER (optional, e.g. "valgrind -q --error-exitcode=99 ..."): prefixed to every
# "$ONESCOPE" invocation. Exit code 99 from the wrapper (valgrind's errors) fails the test
# wherever the invocation happened. $ONESCOPE_BIN is always the bare binary.
set -u
ONESCOPE_BIN=$1
ONESCOPE=$1
SCRATCH=$2
SRC=$3
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH"
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

WRAPPER_LOG="$SCRATCH/wrapper-errors"
if [ -n "${ONESCOPE_WRAPPER:-}" ]; then
    ONESCOPE="$SCRATCH/onescope-wrapped"
    cat >"$ONESCOPE" <<WRAP
#!/usr/bin/env bash
$ONESCOPE_WRAPPER "$ONESCOPE_BIN" "\$@"
rc=\$?
if [ "\$rc" -eq 99 ]; then echo "wrapper reported errors (exit 99): onescope \$*" >>"$WRAPPER_LOG"; fi
exit \$rc
WRAP
    chmod +x "$ONESCOPE"
fi

# expect_exit CODE CMD...: runs CMD, keeps stdout/stderr in $SCRATCH/out and $SCRATCH/err.
expect_exit() {
    local want=$1
    shift
    "$@" >"$SCRATCH/out" 2>"$SCRATCH/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "exit $got, wanted $want: $*"; cat "$SCRATCH/err" >&2; fi
}

# expect_grep PATTERN FILE
expect_grep() {
    if grep -q -- "$1" "$2"; then ok; else bad "no '$1' in $2:"; cat "$2" >&2; fi
}

# feed FIFO [FILE]: a writer of FIFO in the background (FILE's bytes, or none), given up after
# 20 s, so a reader that never opens the FIFO fails the test instead of hanging it. Its open
# blocks until the reader has opened: no sleep decides who comes first. `wait` reaps it.
feed() {
    timeout 20 bash -c 'if [ -n "$2" ]; then cat -- "$2"; fi >"$1"' _ "$1" "${2:-}" 2>/dev/null &
}

finish() {
    if [ -s "$WRAPPER_LOG" ]; then
        failed=$((failed + $(wc -l <"$WRAPPER_LOG")))
        cat "$WRAPPER_LOG" >&2
    fi
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
