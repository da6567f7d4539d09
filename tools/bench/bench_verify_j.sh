#!/bin/sh
# verify -j 2 against -j 1 over 500 replays (issue 13: goal >= 1.8x faster on two cores).
# usage: tools/bench/bench_verify_j.sh ONESCOPE [DIR]  (DIR: where the 500 copies go)
# Whole processes timed by farm-bench, A (-j 2) and B (-j 1) in turn; quote the median ratio.
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
farm-bench -n 5 --pin 0,1 --timeout 300 --vs "$O verify -q -j 1 -r $D/r" -- "$O" verify -q -j 2 -r "$D/r"
