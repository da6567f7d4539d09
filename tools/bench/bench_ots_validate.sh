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
# RUNS times each (default 5) after one warm-up each (warm page cache), by tools/bench/ab.sh
# (whole processes under GNU time): min, median and max of wall and CPU seconds and peak
# memory, and the pair-by-pair ratio A/B. Quote the medians. Exit 1 when validate refuses.
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
# A = validate, B = cat, side by side (tools/bench/ab.sh: GNU time, medians, ratios)
sh "$(dirname "$0")/ab.sh" "$RUNS" "'$O' validate -q '$A'" "cat '$A'"
