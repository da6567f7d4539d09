# Compiles the C example of docs/pose-cache.md against the public headers, so the page
# cannot drift from the API. $1 the C compiler, $2 the source tree, $3 a scratch folder.
set -eu
cc=$1 src=$2 scratch=$3
mkdir -p "$scratch"
out="$scratch/pose_cache_snippet.c"
{
    printf '#include <stdio.h>\n#include <onescope/onescope.h>\n'
    printf 'int snippet(const void *bytes, size_t size);\n'
    printf 'int snippet(const void *bytes, size_t size) {\n'
    # the first ```c block after the "API in brief" heading
    awk '/^## API in brief/ {api = 1} api && /^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' \
        "$src/docs/pose-cache.md"
    printf 'return 0;\n}\n'
} >"$out"
[ "$(wc -l <"$out")" -gt 10 ] || { echo "no C block found in docs/pose-cache.md" >&2; exit 1; }
"$cc" -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -DONESCOPE_STATIC \
    -I "$src/include" -c "$out" -o "$scratch/snippet.o"
echo "docs/pose-cache.md: C example compiles"
