# Compiles the C example of docs/soa-world.md against the public headers (with or without
# Box3D: the header is always there), so the page cannot drift from the API.
# $1 the C compiler, $2 the source tree, $3 a scratch folder.
set -eu
cc=$1 src=$2 scratch=$3
mkdir -p "$scratch"
out="$scratch/soa_world_snippet.c"
{
    printf '#include <stdio.h>\n#include <onescope/onescope.h>\n'
    printf 'int snippet(void);\nint snippet(void) {\n'
    # the first ```c block after the "## API" heading
    awk '/^## API$/ {api = 1} api && /^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' \
        "$src/docs/soa-world.md"
    printf 'return 0;\n}\n'
} >"$out"
[ "$(wc -l <"$out")" -gt 10 ] || { echo "no C block found in docs/soa-world.md" >&2; exit 1; }
"$cc" -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -DONESCOPE_STATIC \
    -I "$src/include" -c "$out" -o "$scratch/snippet.o"
echo "docs/soa-world.md: C example compiles"
