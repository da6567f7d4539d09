# Compiles and runs the C example of docs/test-module.md ("API summary") against the shared
# library, and checks it prints the worked example's hash rows: the page cannot drift from
# the API or from the simulation. $1 the C compiler, $2 the source tree, $3 a scratch folder,
# $4 the shared library, $5 extra compiler flags (sanitizer or coverage runtimes; may be empty).
set -eu
cc=$1 src=$2 scratch=$3 lib=$4 extra=${5:-}
mkdir -p "$scratch"
out="$scratch/test_module_snippet.c"
{
    printf '#include <inttypes.h>\n#include <stdio.h>\n#include <onescope/onescope.h>\n'
    printf 'int main(void) {\n'
    awk '/^## 12. API summary/ {api = 1} api && /^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' \
        "$src/docs/test-module.md"
    printf 'return 0;\n}\n'
} >"$out"
[ "$(wc -l <"$out")" -gt 20 ] || { echo "no C block found in docs/test-module.md" >&2; exit 1; }
# shellcheck disable=SC2086 # $extra is a list of flags
"$cc" -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror $extra -I "$src/include" \
    "$out" "$lib" -Wl,-rpath,"$(dirname "$lib")" -o "$scratch/snippet"
"$scratch/snippet" >"$scratch/snippet.out"
cat "$scratch/snippet.out"
for want in "row 0 hash 7eb9508ff7198b74" "row 1 hash 0d516a5a4c44d9ab" \
            "row 2 hash 4fe2a2df1788779b" "row 3 hash b9639da782bf7d1b" "verify ok, 3 rows"; do
    grep -qx "$want" "$scratch/snippet.out" || { echo "missing: $want" >&2; exit 1; }
done
echo "docs/test-module.md: C example compiles, runs and prints the worked example"
