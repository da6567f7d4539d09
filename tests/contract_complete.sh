# Fails when a public function returning onescope_code (include/onescope/*.h) has no row in
# tests/test_contract.c, so the contract test stays complete as the API grows.
# $1: the source tree.
set -u
src=$1
declared=$(cat "$src"/include/onescope/*.h | tr '\n' ' ' |
    grep -o 'ONESCOPE_API onescope_code *onescope_[a-z0-9_]* *(' |
    sed 's/ONESCOPE_API onescope_code *//; s/ *(//' | sort -u)
missing=0
for fn in $declared; do
    if ! grep -q "^ *ROW\(_NO_ERROR\)\?($fn)," "$src/tests/test_contract.c" ||
        ! grep -q "^CALL($fn," "$src/tests/test_contract.c"; then
        echo "tests/test_contract.c: no CALL/ROW for $fn (declared in include/onescope/)"
        missing=$((missing + 1))
    fi
done
echo "$(echo "$declared" | wc -w) entry points returning onescope_code, $missing missing"
[ "$missing" -eq 0 ]
