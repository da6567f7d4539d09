# The docs check: an implementation written from docs/test-module.md alone (ref_sim.c) must
# print the same hash rows and body states as the library for every file.
# usage: run.sh ONESCOPE REF_SIM SCRATCH SRC [RANDOM_COUNT]
set -u
onescope=$1 ref=$2 scratch=$3 src=$4 count=${5:-300}
rm -rf "$scratch" && mkdir -p "$scratch/cases"
python3 "$src/tests/reimpl/gen.py" "$scratch/cases" "$count" 20261130 >/dev/null || exit 1
passed=0 failed=0 rows=0
for f in "$scratch"/cases/*.ostm "$src"/testdata/*.ostm; do
    a=$("$onescope" replay "$f" --state 2>&1 | tr -s ' ')
    b=$("$ref" "$f" --state 2>&1 | tr -s ' ')
    if [ "$a" = "$b" ] && [ -n "$a" ]; then
        passed=$((passed + 1))
        rows=$((rows + $(printf '%s\n' "$a" | grep -c '^step')))
    else
        failed=$((failed + 1))
        echo "FAIL: $f: the library and ref_sim disagree" >&2
        diff <(printf '%s\n' "$a") <(printf '%s\n' "$b") | head -6 >&2
    fi
done
echo "reimpl: $rows hash rows compared"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
