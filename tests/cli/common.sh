# Sourced by the CLI test scripts: $1 the onescope binary, $2 a scratch folder, $3 the source tree.
set -u
ONESCOPE=$1
SCRATCH=$2
SRC=$3
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH"
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

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

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
