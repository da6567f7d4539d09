# Compiles and runs the C example of docs/ots.md ("API notes") against the shared library and
# checks what it prints, so the page cannot drift from the API. $1 the C compiler, $2 the
# source tree, $3 a scratch folder, $4 the shared library, $5 extra compiler flags (sanitizer or
# coverage runtimes; may be empty).
set -eu
cc=$1 src=$2 scratch=$3 lib=$4 extra=${5:-}
mkdir -p "$scratch"
out="$scratch/ots_snippet.c"
{
    printf '#include <stdio.h>\n#include <onescope/onescope.h>\n'
    printf 'int main(void) {\n'
    awk '/^## 8. API notes/ {api = 1} api && /^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' \
        "$src/docs/ots.md"
    printf 'return 0;\n}\n'
} >"$out"
[ "$(wc -l <"$out")" -gt 20 ] || { echo "no C block found in docs/ots.md" >&2; exit 1; }
# shellcheck disable=SC2086 # $extra is a list of flags
"$cc" -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror $extra -I "$src/include" \
    "$out" "$lib" -Wl,-rpath,"$(dirname "$lib")" -o "$scratch/snippet"
"$scratch/snippet" >"$scratch/snippet.out"
cat "$scratch/snippet.out"
for want in "x at frame 2.5: 0.5" "baked 11 frames of 1 entity"; do
    grep -qx "$want" "$scratch/snippet.out" || { echo "missing: $want" >&2; exit 1; }
done
echo "docs/ots.md: C example compiles, runs and prints what it should"
