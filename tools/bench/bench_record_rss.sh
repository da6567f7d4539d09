#!/usr/bin/env bash
# Peak RSS of the recording commands, each run a child process under /usr/bin/time -v:
# box3d-dump of a 1 000-body pile at 1 000 and 10 000 steps (--segments: 10 000 steps pass
# 256 MiB), ghost of testdata/test-10000.ostm (10 000 frames x 64 bodies), and convert of
# that ghost back and forth. Usage: bench_record_rss.sh ONESCOPE [ONESCOPE_BEFORE]
# (a second binary, e.g. a build of an older commit, is measured beside the first).
# Prints numbers; asserts nothing. Not run by ctest.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 - "$T/k1.json" <<'PY'
import json, math, sys
n = 1000; side = int(math.ceil(math.sqrt((n - 1) / 10)))
bodies = [{"kind": "static_box", "position": [0, -0.5, 0], "size": [200, 0.5, 200]}]
for i in range(n - 1):
    layer, cell = divmod(i, side * side)
    kind = ["sphere", "box", "capsule"][i % 3]
    size = {"sphere": [0.4, 0, 0], "box": [0.4, 0.4, 0.4], "capsule": [0.25, 0.3, 0]}[kind]
    bodies.append({"kind": kind, "size": size, "position": [((cell % side) - 0.5 * side) * 1.1,
                   1 + 1.1 * layer, ((cell // side) - 0.5 * side) * 1.1]})
json.dump({"gravity": [0, -9.81, 0], "bodies": bodies}, open(sys.argv[1], "w"))
PY
rss() { # LABEL BINARY ARGS...: one child, its peak RSS and wall time
    local label=$1 bin=$2
    shift 2
    /usr/bin/time -v "$bin" -q "$@" >/dev/null 2>"$T/time" || true
    printf '%-44s %10s KB %8s s  %s\n' "$label" \
        "$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$T/time")" \
        "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$T/time")" \
        "$(grep -v '^\s' "$T/time" | head -1)"
}
for which in "$@"; do
    echo "== $which"
    seg=$("$which" box3d-dump --help | grep -q -- --segments && echo --segments)
    rss "box3d-dump 1000 bodies x 1000 steps" "$which" box3d-dump "$T/k1.json" "$T/a.ospc" --steps 1000 $seg
    rss "box3d-dump 1000 bodies x 10000 steps" "$which" box3d-dump "$T/k1.json" "$T/b.ospc" --steps 10000 $seg
    rss "ghost test-10000 (10000 frames)" "$which" ghost "$SRC/testdata/test-10000.ostm" "$T/g.ospc" --from 0 --frames 10000
    rss "convert ghost .ospc -> .anm" "$which" convert "$T/g.ospc" "$T/g.anm"
    rss "convert .anm -> .ospc" "$which" convert "$T/g.anm" "$T/g2.ospc"
    rm -f "$T"/*.ospc "$T"/*.anm
done
