#!/bin/sh
# verify -j 2 against -j 1 over 500 replays (issue 13: goal >= 1.8x faster on two cores).
# usage: tools/bench/bench_verify_j.sh ONESCOPE [DIR]  (DIR: where the 500 copies go)
# Whole processes side by side (tools/bench/ab.sh), A (-j 2) and B (-j 1) in turn, pinned to
# both cores; quote the median ratio. BENCH_RUNS: runs of each (default 11).
set -eu
O=$1
D=${2:-$(mktemp -d)}
mkdir -p "$D/td" "$D/r"
"$O" gen-testdata -q "$D/td"
i=0
while [ $i -lt 100 ]; do
    for f in test-10000 test-2d-600 test-field-2d test-link-left test-link-right; do
        cp "$D/td/$f.ostm" "$D/r/$i-$f.ostm"
    done
    i=$((i + 1))
done
echo "$(ls "$D/r" | wc -l) replays in $D/r"
PIN=0,1 sh "$(dirname "$0")/ab.sh" "${BENCH_RUNS:-11}" "'$O' verify -q -j 2 -r '$D/r'" \
    "'$O' verify -q -j 1 -r '$D/r'"
