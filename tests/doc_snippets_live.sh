# Compiles and runs the C examples of docs/live-stream.md ("API") and docs/ghost.md ("API")
# against the shared library and checks what they print: the pages cannot drift from the API.
# $1 the C compiler, $2 the source tree, $3 a scratch folder, $4 the shared library, $5 extra
# compiler flags (sanitizer or coverage runtimes; may be empty).
set -eu
cc=$1 src=$2 scratch=$3 lib=$4 extra=${5:-}
mkdir -p "$scratch"
run() { # NAME DOC HEADING EXPECTED-LINE...
    local name=$1 doc=$2 heading=$3
    shift 3
    local out="$scratch/$name.c"
    {
        printf '#include <inttypes.h>\n#include <stdio.h>\n#include <onescope/onescope.h>\n'
        printf 'int main(void) {\n'
        awk -v h="$heading" 'index($0, h) == 1 {api = 1} api && /^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' \
            "$src/$doc"
        printf 'return 0;\n}\n'
    } >"$out"
    [ "$(wc -l <"$out")" -gt 15 ] || { echo "no C block found in $doc" >&2; exit 1; }
    # shellcheck disable=SC2086 # $extra is a list of flags
    "$cc" -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror $extra \
        -I "$src/include" "$out" "$lib" -Wl,-rpath,"$(dirname "$lib")" -o "$scratch/$name"
    "$scratch/$name" >"$scratch/$name.out"
    cat "$scratch/$name.out"
    for want in "$@"; do
        grep -qx "$want" "$scratch/$name.out" || { echo "$doc: missing: $want" >&2; exit 1; }
    done
    echo "$doc: C example compiles, runs and prints what the page says"
}
run live docs/live-stream.md "## 11. API" "stream 146 bytes" "step 0 hash 7eb9508ff7198b74" \
    "step 1 hash 0d516a5a4c44d9ab" "step 2 hash 4fe2a2df1788779b" "step 3 hash b9639da782bf7d1b" \
    "verify ok"
run ghost docs/ghost.md "## 4. API" "step 1 body 0 at 6507 8071" "step 2 body 0 at 6610 8014" \
    "replay example.ostm"
