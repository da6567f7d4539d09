#!/bin/sh
# Validating a 250 MiB pose cache, from its file and from a pipe, against cat: time and peak
# memory.
# usage: tools/bench/bench_validate_stream.sh ONESCOPE [DIR]
#   ONESCOPE  the CLI to measure (e.g. build/gcc-O2/tools/onescope)
#   DIR       scratch folder for big.ospc (default: a new mktemp -d); a big.ospc already there
#             (and not empty) is reused
#
# The cache (made by python3, no CLI needed): 3 entities x 3 120 761 frames of varied poses,
# 262 144 044 bytes (250 MiB), under the 256 MiB input limit. Two pairs, each A B A B ... RUNS times
# (default 9) after a warm-up (warm page cache), by tools/bench/ab.sh: min, median and max of
# wall and CPU seconds and peak memory, and the pair-by-pair ratio A/B. Quote the medians.
#   1. A = validate -q FILE, B = cat FILE
#   2. A = cat FILE | validate -q -, B = cat FILE (to /dev/null): the streamed standard
#      input, whose peak must not follow the file
#   3. A = the same, B = cat FILE | cat: the same pipe with the plainest reader, so the ratio
#      is validate's own cost (a pipe copies every byte twice more and switches between two
#      processes: 2. measures the pipe as much as validate)
# Targets (issue 25): 1. at most 1.3x cat, wall and CPU; 2./3. at most 1.5x cat (read as 3.:
# the same pipe), peak memory of a few MiB. Exit 1 when validate refuses the file. Whole run: about a minute on two cores.
# Knobs (environment): BENCH_RUNS (9), BENCH_FRAMES (3120761).
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 ONESCOPE [DIR]" >&2
    exit 2
fi
O=$1
D=${2:-$(mktemp -d)}
RUNS=${BENCH_RUNS:-9}
FRAMES=${BENCH_FRAMES:-3120761}
if [ ! -x "$O" ]; then
    echo "$0: $O: not an executable" >&2
    exit 2
fi
mkdir -p "$D"
F=$D/big.ospc
if [ ! -s "$F" ]; then
    python3 - "$F.tmp" "$FRAMES" <<'PY'
import struct, sys
path, frames = sys.argv[1], int(sys.argv[2])
with open(path, 'wb') as o:
    o.write(b'OSPC' + struct.pack('<HHB3xIIqd', 1, 0, 3, 3, frames, 0, 1.0))
    o.write(b'\x00\x00' * 6)
    for e in range(3):
        o.write(struct.pack('<QB3x3fH', e + 1, 0, 1.0, 1.0, 1.0, 0))
    # 4096 frames of different poses, repeated: the checks see real values, not one pattern
    block = b''.join(struct.pack('<7f', i * 0.25, -i * 0.5, e * 1e-3, 0.0, 0.0, 0.0, 1.0)
                     for i in range(4096) for e in range(3))
    full, rest = divmod(frames, 4096)
    for _ in range(full):
        o.write(block)
    o.write(block[:rest * 84])
PY
    mv "$F.tmp" "$F"
fi
"$O" validate -q "$F"
echo "$F: $(wc -c <"$F") bytes"
AB=$(dirname "$0")/ab.sh
echo "== 1. validate FILE vs cat FILE"
sh "$AB" "$RUNS" "'$O' validate -q '$F'" "cat '$F'"
echo "== 2. cat FILE | validate - vs cat FILE"
sh "$AB" "$RUNS" "cat '$F' | '$O' validate -q -" "cat '$F'"
echo "== 3. cat FILE | validate - vs cat FILE | cat"
sh "$AB" "$RUNS" "cat '$F' | '$O' validate -q -" "cat '$F' | cat"
