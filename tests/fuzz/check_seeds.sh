# Every seed fuzz_make_seeds makes must be committed unchanged under tests/fuzz/corpus/
# (other committed inputs, e.g. minimised fuzz finds, are allowed beside them).
# Usage: check_seeds.sh MAKE_SEEDS SCRATCH CORPUS
set -eu
rm -rf "$2" && mkdir -p "$2"
"$1" "$2"
bad=0 n=0
while IFS= read -r f; do
    n=$((n + 1))
    rel=${f#"$2"/}
    if ! cmp -s "$f" "$3/$rel"; then echo "differs or missing: tests/fuzz/corpus/$rel" >&2; bad=1; fi
done < <(find "$2" -type f | sort)
if [ "$bad" -ne 0 ]; then
    echo "regenerate with: fuzz_make_seeds tests/fuzz/corpus (docs/hardening.md)" >&2
    exit 1
fi
echo "$n generated seeds match the committed corpus"
