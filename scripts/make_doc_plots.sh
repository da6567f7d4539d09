#!/usr/bin/env bash
# Draws the pictures of docs/plot.md into docs/plots/ with a built CLI (run by hand; the PNGs
# are committed and not byte-compared in CI). usage: scripts/make_doc_plots.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli="${1:-$root/build/dev}/tools/onescope"
t="$root/testdata"
out="$root/docs/plots"
"$cli" plot --help >/dev/null # fails early on a CLI without plot
mkdir -p "$out"
"$cli" plot "$t/test-2d-600.ostm" -o "$out/replay-2d.png" --width 900 --height 700
"$cli" plot "$t/test-link-right.ostm" "$t/test-link-left.ostm" -o "$out/replay-3d.png" --width 1200 --height 620
"$cli" plot "$t/test-2d-600.ostm" "$t/test-2d-ghost.ospc" --from 200 --to 239 -o "$out/ghost-over-replay.png" --width 900 --height 700
"$cli" plot "$t/test-2d-ghost.ospc" -o "$out/pose-cache.png" --width 900 --height 700
"$cli" plot "$t/test-field-2d.ostm" --field density --step 150 -o "$out/field-density.png" --width 900 --height 700
"$cli" plot "$t/test-field-3d.ostm" --field occupancy --step 100 -o "$out/field-occupancy.png" --width 900 --height 700
"$cli" plot --diff "$t/test-2d-600.ostm" "$t/test-2d-ghost.ospc" -o "$out/diff.png" --width 900 --height 500
echo "make_doc_plots.sh: wrote $(ls "$out" | wc -l) pictures to $out"
