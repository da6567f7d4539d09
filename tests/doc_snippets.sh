# The C examples in docs/ are compiled (and, where the page says what they print, run and
# checked) against the public headers and the shared library, so no page can drift from the API.
# $1 the C compiler, $2 the source tree, $3 a scratch folder, $4 the shared library, $5 extra
# compiler flags (sanitizer or coverage runtimes; may be empty).
set -eu
cc=$1 src=$2 scratch=$3 lib=$4 extra=${5:-}
rm -rf "$scratch" && mkdir -p "$scratch"
checked=0

# snippet NAME DOC HEADING SIGNATURE: the first ```c block after the line HEADING, wrapped in
# a function with SIGNATURE, into $scratch/NAME.c.
snippet() {
    local name=$1 doc=$2 heading=$3 signature=$4 out="$scratch/$1.c"
    {
        printf '#include <inttypes.h>\n#include <stdio.h>\n#include <onescope/onescope.h>\n'
        printf '%s;\n%s {\n' "$signature" "$signature"
        awk -v h="$heading" '$0 == h {api = 1} api && /^```c$/ {on = 1; next} on && /^```$/ {exit} on {print}' \
            "$src/$doc"
        printf 'return 0;\n}\n'
    } >"$out"
    [ "$(wc -l <"$out")" -gt 12 ] || { echo "no C block after '$heading' in $doc" >&2; exit 1; }
}

# compile NAME DOC HEADING SIGNATURE: the example must compile warning-free.
compile() {
    snippet "$@"
    "$cc" -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -DONESCOPE_STATIC \
        -I "$src/include" -c "$scratch/$1.c" -o "$scratch/$1.o"
    echo "$2: C example compiles"
    checked=$((checked + 1))
}

# run NAME DOC HEADING LINE...: the example is main(); it must print every LINE.
run() {
    local name=$1 doc=$2 heading=$3
    shift 3
    snippet "$name" "$doc" "$heading" "int main(void)"
    # shellcheck disable=SC2086 # $extra is a list of flags
    "$cc" -std=c17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror $extra \
        -I "$src/include" "$scratch/$name.c" "$lib" -Wl,-rpath,"$(dirname "$lib")" -o "$scratch/$name"
    "$scratch/$name" >"$scratch/$name.out"
    for want in "$@"; do
        grep -qx "$want" "$scratch/$name.out" || { echo "$doc: the example did not print: $want" >&2; exit 1; }
    done
    echo "$doc: C example compiles, runs and prints what the page says"
    checked=$((checked + 1))
}

compile pose_cache docs/pose-cache.md "## API in brief" "int snippet(const void *bytes, size_t size)"
compile soa_world docs/soa-world.md "## API" "int snippet(void)"
compile own_engine README.md "## Verify your own engine" \
    "int snippet(const onescope_module *module, const void *setup, size_t setup_size, uint64_t start_hash, size_t (*next_input)(uint8_t *input), uint64_t (*engine_step)(const uint8_t *input, size_t size))"
run test_module docs/test-module.md "## 12. API summary" \
    "row 0 hash 7eb9508ff7198b74" "row 1 hash 0d516a5a4c44d9ab" \
    "row 2 hash 4fe2a2df1788779b" "row 3 hash b9639da782bf7d1b" "verify ok, 3 rows"
run ots docs/ots.md "## 8. API notes" "x at frame 2.5: 0.5" "baked 11 frames of 1 entity"
run live docs/live-stream.md "## 11. API" "stream 146 bytes" "step 0 hash 7eb9508ff7198b74" \
    "step 1 hash 0d516a5a4c44d9ab" "step 2 hash 4fe2a2df1788779b" "step 3 hash b9639da782bf7d1b" \
    "verify ok"
run soa_scene docs/soa-world.md "## Scenes: \`onescope_soa_scene\`" \
    "bad.json: line 2, column 19: bodies\\[0\\].position\\[1\\]: expected a number, found a string" \
    "2 bodies, dt 0.02 s"
run ghost docs/ghost.md "## 4. API" "step 1 body 0 at 6507 8071" "step 2 body 0 at 6610 8014" \
    "replay example.ostm"
echo "$checked passed, 0 failed"
