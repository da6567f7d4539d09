#!/bin/sh
# Validating a large .anm (OTS) clip against reading it: time and peak memory.
# usage: tools/bench/bench_ots_validate.sh ONESCOPE [DIR]
#   ONESCOPE  the CLI to measure (e.g. build-rel/tools/onescope)
#   DIR       scratch folder for the scene, the cache and big.anm (default: a new mktemp -d);
#             a big.anm already there (and not empty) is reused, so a rerun is quick
#
# Builds the clip with the CLI alone, no network: a Box3D scene of 300 spheres drifting apart
# (no gravity, no contacts, sleep off) is stepped 1019 times by `box3d-dump` into an OSPC cache
# (300 entities x 1020 frames), and `convert CACHE big.anm --keys all` writes every keyframe:
# 306 000 keyframes of ~410 bytes, about 120 MiB, under the 256 MiB file limit.
# Then `validate -q big.anm` (A) and `cat big.anm >/dev/null` (B) run in turn, A B A B ...,
# RUNS times each (default 5) after one warm-up each (warm page cache), each timed as a whole
# process by /usr/bin/time (GNU time). Printed: min, median and max of wall seconds, CPU seconds
# (user + system) and peak resident memory (MiB), and the median of the pair-by-pair ratio A/B
# of wall and CPU. Quote the medians. Exit 1 when validate refuses the clip.
# Needs a CLI built with Box3D. Whole run: about a minute on two cores today (the clip is made
# once: ~10 s), well under 3 minutes.
# Knobs (environment): BENCH_RUNS (5), BENCH_ENTITIES (300), BENCH_STEPS (1019).
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 ONESCOPE [DIR]" >&2
    exit 2
fi
O=$1
D=${2:-$(mktemp -d)}
ENTITIES=${BENCH_ENTITIES:-300}
STEPS=${BENCH_STEPS:-1019}
RUNS=${BENCH_RUNS:-5}
if [ ! -x "$O" ]; then
    echo "$0: $O: not an executable" >&2
    exit 2
fi
mkdir -p "$D"
A=$D/big.anm
if [ ! -s "$A" ]; then
    # the scene: ENTITIES spheres on a 20-wide grid, each with its own velocity and spin
    i=0
    {
        printf '{"gravity": [0, 0, 0], "enable_sleep": false, "substeps": 1, "bodies": [\n'
        while [ $i -lt "$ENTITIES" ]; do
            [ $i -gt 0 ] && printf ',\n'
            printf '{"name": "b%04d", "kind": "sphere", "position": [%d, 0, %d], "size": [0.5, 0, 0],' \
                $i $((i % 20 * 2)) $(((i / 20) * 2))
            printf ' "linear_velocity": [0.1, 0.%d, 0.05], "angular_velocity": [0, 1, 0]}' $((i % 7))
            i=$((i + 1))
        done
        printf ']}\n'
    } >"$D/scene.json"
    "$O" box3d-dump -q "$D/scene.json" "$D/big.ospc" -s "$STEPS"
    "$O" convert -q "$D/big.ospc" "$A.tmp" --keys all
    mv "$A.tmp" "$A"
    rm -f "$D/big.ospc"
fi
# the file must be one validate accepts, or the figures would time an early refusal
"$O" validate -q "$A"
echo "$A: $(wc -c <"$A") bytes"
T=$D/times.txt
: >"$T"
# one timed run: "LABEL wall user sys peak_KiB" appended to $T; the command's exit code checked.
# Wall: GNU date's nanoseconds around GNU time (which counts 0.01 s steps); CPU and peak: GNU time.
run() {
    label=$1
    shift
    t0=$(date +%s%N)
    /usr/bin/time -o "$D/one.txt" -f "%U %S %M %x" "$@" >/dev/null
    t1=$(date +%s%N)
    e=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    read -r u s m x <"$D/one.txt"
    if [ "$x" != 0 ]; then
        echo "$0: '$*' exited $x" >&2
        exit 1
    fi
    echo "$label $e $u $s $m" >>"$T"
}
# warm-up, one each, not counted
run W "$O" validate -q "$A"
run W cat "$A"
k=0
while [ $k -lt "$RUNS" ]; do
    run A "$O" validate -q "$A"
    run B cat "$A"
    k=$((k + 1))
done
echo "A = $O validate -q $A"
echo "B = cat $A >/dev/null"
echo "runs: $RUNS each, A B A B ..., after one warm-up each; whole processes (GNU time)"
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
    print "(wall includes starting GNU time, ~1 ms; CPU seconds come in 0.01 s steps)"
}' "$T"
