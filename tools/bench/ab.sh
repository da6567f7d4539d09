#!/bin/sh
# Two commands timed side by side as whole processes: A B A B ..., RUNS times each after one
# warm-up each, by GNU time (/usr/bin/time) for CPU seconds and peak memory and GNU date for
# wall seconds. Prints min, median and max of each figure and the pair-by-pair ratio A/B;
# quote the medians. Each command is one shell string (run by sh -c, so redirections work).
# usage: tools/bench/ab.sh RUNS 'COMMAND A' 'COMMAND B'
#   PIN=0,1 (environment): run both under taskset -c 0,1
# Exit 1 when a command fails (the figures would time a refusal).
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 RUNS 'COMMAND A' 'COMMAND B'" >&2
    exit 2
fi
RUNS=$1
CA=$2
CB=$3
T=$(mktemp)
ONE=$(mktemp)
trap 'rm -f "$T" "$ONE"' EXIT
pin=
if [ -n "${PIN:-}" ]; then pin="taskset -c $PIN"; fi
run() {
    label=$1
    t0=$(date +%s%N)
    # shellcheck disable=SC2086 # $pin is empty or "taskset -c CPUS"
    $pin /usr/bin/time -o "$ONE" -f "%U %S %M %x" sh -c "$2" >/dev/null
    t1=$(date +%s%N)
    read -r u s m x <"$ONE"
    if [ "$x" != 0 ]; then
        echo "$0: '$2' exited $x" >&2
        exit 1
    fi
    echo "$label $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }') $u $s $m" >>"$T"
}
run W "$CA"
run W "$CB"
k=0
while [ "$k" -lt "$RUNS" ]; do
    run A "$CA"
    run B "$CB"
    k=$((k + 1))
done
echo "A = $CA"
echo "B = $CB"
echo "runs: $RUNS each, A B A B ..., after one warm-up each${pin:+, $pin}; whole processes"
awk -v n="$RUNS" '
function med(a, m,   i, j, t, b) {  # sorts a copy; the median of m values
    for (i = 1; i <= m; i++) b[i] = a[i]
    for (i = 2; i <= m; i++) { t = b[i]; for (j = i - 1; j >= 1 && b[j] > t; j--) b[j + 1] = b[j]; b[j + 1] = t }
    lo = b[1]; hi = b[m]
    return m % 2 ? b[(m + 1) / 2] : (b[m / 2] + b[m / 2 + 1]) / 2
}
function row(name, a, fmt,   m) { m = med(a, n); printf "%-14s " fmt " " fmt " " fmt "\n", name, lo, m, hi }
$1 == "A" { ia++; aw[ia] = $2; ac[ia] = $3 + $4; am[ia] = $5 / 1024 }
$1 == "B" { ib++; bw[ib] = $2; bc[ib] = $3 + $4; bm[ib] = $5 / 1024 }
END {
    printf "%-14s %10s %10s %10s\n", "", "min", "median", "max"
    row("A wall s", aw, "%10.3f"); row("A cpu s", ac, "%10.3f"); row("A peak MiB", am, "%10.1f")
    row("B wall s", bw, "%10.3f"); row("B cpu s", bc, "%10.3f"); row("B peak MiB", bm, "%10.1f")
    zc = 0
    for (i = 1; i <= n; i++) { rw[i] = aw[i] / bw[i]; if (bc[i] > 0) rc[i] = ac[i] / bc[i]; else zc = 1 }
    row("A/B wall", rw, "%10.2f")
    if (zc) print "A/B cpu        n/a: B used 0 CPU seconds (GNU time counts 0.01 s steps) in a pair"
    else row("A/B cpu", rc, "%10.2f")
    print "(each run includes starting sh and GNU time, about 1 ms; CPU seconds come in 0.01 s steps)"
}' "$T"
