#!/bin/sh
# Converting a large .anm clip to an .ospc cache against validating it: time and peak memory.
# usage: tools/bench/bench_convert_stream.sh ONESCOPE [DIR]
#   ONESCOPE  the CLI to measure (e.g. build/gcc-O2/tools/onescope)
#   DIR       scratch folder for big.anm and the output (default: a new mktemp -d); a big.anm
#             already there (and not empty) is reused, so a rerun is quick
#
# The clip is written by awk, no other tool: PEGS pegs (default 300) in a tree (peg i's parent
# is peg (i-1)/3, so chains of 5 or 6 to compose), FRAMES frames (default 2110) with a
# keyframe on every frame of every peg, in three kinds taking turns by peg: Euler LINEAR,
# quaternion LINEAR, and Euler BEZIER with position handles on all three axes. About 125 MB
# with the defaults (633 000 keyframes), under the 256 MiB input limit.
# Then `convert big.anm out.ospc` (A) and `validate -q big.anm` (B) run in turn by farm-bench
# (whole processes, warm page cache): min, median and max of wall and CPU seconds and peak
# memory, and the pair-by-pair ratio A/B. Quote the medians. Before the figures, the streamed
# output is checked byte for byte against the in-memory path's (`convert big.anm -`), so the
# figures time the right bytes. Exit 1 when either refuses or the bytes differ.
# Knobs (environment): BENCH_RUNS (5), BENCH_PEGS (300), BENCH_FRAMES (2000).
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 ONESCOPE [DIR]" >&2
    exit 2
fi
O=$1
D=${2:-$(mktemp -d)}
PEGS=${BENCH_PEGS:-300}
FRAMES=${BENCH_FRAMES:-2110}
RUNS=${BENCH_RUNS:-5}
if [ ! -x "$O" ]; then
    echo "$0: $O: not an executable" >&2
    exit 2
fi
mkdir -p "$D"
A=$D/big.anm
if [ ! -s "$A" ]; then
    awk -v pegs="$PEGS" -v frames="$FRAMES" 'BEGIN {
        printf "{\"format\": \"octo_anm\", \"version\": 4, \"source\": \"maya\",\n"
        printf " \"frame_range\": [0, %d], \"fps\": 24.0,\n", frames - 1
        printf " \"coordinate_system\": {\"up\": \"y\", \"hand\": \"right\", \"unit\": \"meters\",\n"
        printf "  \"rot_order\": \"xyz\", \"rot_repr_anim\": \"euler_deg\", \"rot_repr_rest\": \"quat_wxyz\"},\n"
        printf " \"pegs\": [\n"
        for (p = 0; p < pegs; p++) {
            parent = p == 0 ? "null" : sprintf("\"peg-%04d\"", int((p - 1) / 3))
            printf "  {\"name\": \"peg-%04d\", \"parent\": %s, \"rest_pivot\": [0, 0, 0],", p, parent
            printf " \"rest_rotation\": [1, 0, 0, 0], \"keyframes\": [\n"
            kind = p % 3
            for (f = 0; f < frames; f++) {
                x = sin(f * 0.01 + p) * 0.5; y = cos(f * 0.013 + p) * 0.25; z = f * 0.001
                if (f > 0) printf ",\n"
                printf "   {\"frame\": %d, \"pos\": [%.6f, %.6f, %.6f], ", f, x, y, z
                if (kind == 1) {
                    h = (f * 0.002 + p * 0.1) / 2
                    printf "\"rot_quat\": [%.9f, 0, %.9f, 0], ", cos(h), sin(h)
                } else {
                    printf "\"rot\": [%.4f, %.4f, %.4f], ", (f * 0.3) % 360, (p * 7) % 90, (f * 0.1) % 45
                }
                printf "\"scl\": [1, 1, 1], "
                if (kind == 2) {
                    printf "\"interp\": \"BEZIER\", \"handles\": {\"pos\": [[[%.3f, %.6f], [%.3f, %.6f]], ", f - 0.33, x, f + 0.33, x
                    printf "[[%.3f, %.6f], [%.3f, %.6f]], [[%.3f, %.6f], [%.3f, %.6f]]], \"rot\": [], \"scl\": []}}", f - 0.33, y, f + 0.33, y, f - 0.33, z, f + 0.33, z
                } else {
                    printf "\"interp\": \"LINEAR\"}"
                }
            }
            printf "\n  ]}%s\n", p + 1 < pegs ? "," : ""
        }
        printf " ],\n \"cameras\": []}\n"
    }' >"$A.tmp"
    mv "$A.tmp" "$A"
fi
# the clip must be one both accept, and the streamed bytes the in-memory path's
"$O" validate -q "$A"
"$O" convert "$A" "$D/out.ospc"
"$O" convert "$A" - >"$D/mem.ospc"
if ! cmp -s "$D/out.ospc" "$D/mem.ospc"; then
    echo "$0: the streamed convert wrote other bytes than the in-memory one" >&2
    exit 1
fi
rm -f "$D/mem.ospc"
echo "$A: $(wc -c <"$A") bytes, $PEGS pegs x $FRAMES frames; out.ospc: $(wc -c <"$D/out.ospc") bytes"
farm-bench -n "$RUNS" --timeout 600 \
    --vs "sh -c 'exec \"$O\" validate -q \"$A\" >/dev/null'" \
    -- sh -c "exec \"$O\" convert \"$A\" \"$D/out.ospc\" >/dev/null"
