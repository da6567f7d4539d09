#!/usr/bin/env bash
# The main job: install what is missing, build in Release, then run the CLI over testdata/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)" >/dev/null
cli=build/release/tools/onescope
shopt -s nullglob
files=(testdata/*.ospc testdata/*.ostm testdata/*.pvt testdata/*.anm)
if [ ${#files[@]} -eq 0 ]; then
    echo "run.sh: testdata/ holds no files yet" >&2
    exit 1
fi
"$cli" validate "${files[@]}"
for f in "${files[@]}"; do
    "$cli" dump "$f" | head -n 12
done
replays=(testdata/*.ostm)
if [ ${#replays[@]} -gt 0 ] && "$cli" --help | grep -q "^  verify"; then
    "$cli" verify "${replays[@]}"
fi
