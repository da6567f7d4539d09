#!/usr/bin/env bash
# The ctest 'mutants_generated': scripts/mutagen.py runs, makes mutants of every kind, and
# every snippet of a sample applies where it says (mutate.sh --check on its output).
set -eu
here=$1 out=$2
python3 "$here/scripts/mutagen.py" --sample 400 --seed 1 >"$out"
for kind in rel const ret logic; do
    grep -q "^why: .*:$kind:" "$out" || { echo "no $kind mutant generated"; exit 1; }
done
# the landing code is never mutated (a flipped special-file check would replace /dev/null)
python3 "$here/scripts/mutagen.py" --files src/file.c >"$out.file"
if grep -E '^from: .*(special|rename|unlink|S_IS)' "$out.file"; then
    echo "a mutant of the landing code was generated"; exit 1
fi
rm -f "$out.file"
bash "$here/scripts/mutate.sh" -l "$out" --check
