#!/usr/bin/env bash
# onescope view on long runs: page size, time to first paint in headless Chromium
# (bench_view.py) and view's own peak RSS and wall time (/usr/bin/time -v), for
# testdata/test-10000.ostm (10 000 steps, up to 64 bodies) and a 1 000-entity x 10 000-frame
# 3D cache of 9 500 frames (266 MB, under the writer's 256 MiB; made with the Python package). Usage: bench_view.sh BUILD_DIR
# Prints numbers; asserts nothing. Not run by ctest.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:?usage: bench_view.sh BUILD_DIR}
ONESCOPE=$BUILD/tools/onescope
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PYTHONPATH="$SRC/python" ONESCOPE_LIBRARY="$BUILD/libonescope.so" /usr/bin/python3 - "$T/big.ospc" <<'PY'
import sys
import numpy as np
import onescope
frames, n = 9500, 1000  # 10 000 frames would pass the writer's 256 MiB
t = np.arange(frames, dtype=np.float32)[:, None]
e = np.arange(n, dtype=np.float32)[None, :]
pos = np.empty((frames, n, 3), dtype=np.float32)
pos[:, :, 0] = np.cos(t * 0.01 + e) * (1 + e * 0.01)
pos[:, :, 1] = np.sin(t * 0.02 + e * 0.5)
pos[:, :, 2] = np.sin(t * 0.01 + e) * (1 + e * 0.01)
# label "big": with unit "m" the pose section starts at a multiple of 4, so view maps the
# poses in place (an unaligned one is copied: onescope_pose_cache_map)
onescope.PoseCache.create(pos, dimensions=3, unit="m", label="big").write(sys.argv[1])
PY
rss() { # LABEL OUT ARGS...: view as one child, its peak RSS and wall time
    local label=$1
    shift
    /usr/bin/time -v "$ONESCOPE" -q view "$@" >/dev/null 2>"$T/time" || tail -3 "$T/time"
    printf '%-44s %10s KB %8s s\n' "$label" \
        "$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")" \
        "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time")"
}
echo "input sizes: test-10000.ostm $(stat -c %s "$SRC/testdata/test-10000.ostm") bytes, cache $(stat -c %s "$T/big.ospc") bytes"
echo "view (peak RSS, wall):"
rss "test-10000.ostm" "$SRC/testdata/test-10000.ostm" -o "$T/test-10000.html"
rss "1000 x 9500 cache" "$T/big.ospc" -o "$T/cache-1000x9500.html"
rss "1000 x 9500 cache, --max-bytes 20000000" "$T/big.ospc" --max-bytes 20000000 -o "$T/cache-20MB.html"
if command -v chromium >/dev/null; then
    echo "headless Chromium:"
    /usr/bin/python3 "$SRC/tools/bench/bench_view.py" "$(command -v chromium)" 5 "$T/test-10000.html" \
        "$T/cache-1000x9500.html" "$T/cache-20MB.html"
else
    echo "chromium not installed: no paint times"
fi
