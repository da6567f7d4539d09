#!/usr/bin/env bash
# Runs the hand-written mutants (docs/hardening.md, "Round four"): for each patch, apply it,
# rebuild the gcc-O2 tree, run the whole ctest (stopping at the first failure: a killed
# mutant), record the verdict in tests/mutants/round4/results.tsv and revert. A mutant that does not build
# is reported as such (it does not count). Usage: bash tests/mutants/round4/run.sh [PATCH...]
set -u
cd "$(dirname "$0")/.."
build=build/gcc-O2
results=tests/mutants/round4/results.tsv
[ -f "$results" ] || printf 'mutant\tverdict\tkilled_by\tseconds\n' >"$results"
patches=("$@")
[ ${#patches[@]} -eq 0 ] && patches=(tests/mutants/round4/[0-9]*.patch)
for patch in "${patches[@]}"; do
    name=$(basename "$patch" .patch)
    start=$(date +%s)
    if ! git apply "$patch"; then
        printf '%s\tnot-applied\t-\t0\n' "$name" >>"$results"
        continue
    fi
    if ! cmake --build "$build" -j2 >"/tmp/mutant-$name.build.log" 2>&1; then
        verdict=no-build killer=-
    else
        log="/tmp/mutant-$name.ctest.log"
        # the likely suites first (a kill there is a kill); a survivor only after the whole ctest
        likely='^(test_recording|test_keyframes|test_bytes|test_trust|test_module_check|test_module|test_ghost|test_diff|test_contract|test_survivors|cli_verify|cli_diff|cli_module|cli_ghost|cli_survivors|example_springs)$'
        (cd "$build" && timeout 3600 ctest -j2 --timeout 300 --stop-on-failure -R "$likely") >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then
            (cd "$build" && timeout 3600 ctest -j2 --timeout 300 --stop-on-failure) >"$log" 2>&1
            rc=$?
        fi
        killer=$(grep -E '^\s+[0-9]+ - [^ ]+ \((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception)' "$log" |
            head -1 | sed -E 's/^\s+[0-9]+ - ([^ ]+) .*$/\1/')
        if [ $rc -eq 0 ]; then verdict=survived killer=-; else verdict=killed; fi
        [ -z "$killer" ] && killer="ctest rc $rc"
    fi
    git apply -R "$patch"
    printf '%s\t%s\t%s\t%s\n' "$name" "$verdict" "$killer" $(($(date +%s) - start)) >>"$results"
    echo "$name: $verdict ($killer)"
done
# the tree as it was, rebuilt
cmake --build "$build" -j2 >/dev/null 2>&1
