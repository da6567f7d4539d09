#!/usr/bin/env bash
# Mutation testing, run by hand (not in CI): plants each mutant of scripts/mutants.txt in
# turn, rebuilds one build folder, runs the ctest suites and counts the mutant as killed when
# a suite fails (or the build does). The file is restored after each mutant, also on Ctrl-C.
#
#   bash scripts/mutate.sh [-j N] [-k] [-n LIST] [-l FILE] [-t SECONDS] [--sanitize] [--check] [FILTER]
#     --check only checks that every mutant's snippet occurs exactly once in its file (the
#             ctest 'mutants_list' runs it, so the list follows the code it mutates)
#     -l FILE the mutant list (default scripts/mutants.txt); scripts/mutagen.py writes one:
#               python3 scripts/mutagen.py --sample 300 --seed 1 > build/mutants-gen.txt &&
#                   nice bash scripts/mutate.sh -l build/mutants-gen.txt
#             A block may carry "line: N" (the snippet must then occur once on that line, not
#             in the file) and "suites: REGEX" (the suites that read that file: built and run
#             first; the other fast suites only when those pass)
#     -F      with suites: fields, fall back to every fast suite; by default the fallback also
#             leaves out the slow ones (more than 10 s each: $slow below) unless the block's
#             suites name them, so a survivor costs about a minute, not three
#     -S REGEX only the suites of REGEX (e.g. the new suites, to re-run the survivors of an
#             earlier run after tests were added: the other suites have passed them already)
#     -B      skip the run of the unmutated tree's suites (when it has just passed)
#     -t S    each suite's timeout in seconds (default 120; a hung mutant counts as killed)
#     -j N    parallel build and ctest jobs (default 2)
#     -n LIST only the mutants with these indices (comma-separated, as the report numbers them)
#     --sanitize  build with -DONESCOPE_SANITIZE=address,undefined (build/mutate-asan), as the
#             CI's sanitizer stage runs the suites: memory slips then die too (about 2x slower)
#     -k      keep going through the suites after the first failure (slower; the default
#             stops at the first failing suite, which is all a kill needs)
#     FILTER  only mutants whose file contains FILTER (e.g. live_stream)
#
# Excluded suites, for time (each takes 6-40 s; together they would triple a mutant's run):
# reimpl_test_module (the independent re-implementation), test_testdata (regenerates the
# committed data), install_consumer (an install and a consumer build), cli_atomic and
# cli_record_kill (SIGKILL loops over a 64 MB file), exported_symbols and contract_complete
# (they read the headers and symbol table, which no mutant changes). Each suite gets 120 s:
# a mutant that hangs one is killed by the timeout.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
jobs=2 stop=--stop-on-failure filter= only= sanitize= check= list= timeout=120 skip_baseline= full= only_suites=
while [ $# -gt 0 ]; do
    case $1 in
        -j) jobs=$2; shift 2 ;;
        -k) stop=; shift ;;
        -n) only=",$2,"; shift 2 ;;
        --sanitize) sanitize=-DONESCOPE_SANITIZE=address,undefined; shift ;;
        --check) check=1; shift ;;
        -l) list=$2; shift 2 ;;
        -t) timeout=$2; shift 2 ;;
        -B) skip_baseline=1; shift ;;
        -F) full=1; shift ;;
        -S) only_suites=$2; shift 2 ;;
        -h|--help) sed -n '2,43p' "$0"; exit 0 ;;
        *) filter=$1; shift ;;
    esac
done
[ -n "$list" ] || list="$here/scripts/mutants.txt"
build="$here/build/mutate${sanitize:+-asan}"
exclude='^(reimpl_test_module|test_testdata|install_consumer|cli_atomic|cli_record_kill|exported_symbols|contract_complete)$'
log="$build/mutate.log"
slow='^(cli_plot|cli_validate_stream|test_validate_stream|cli_ots|cli_verify|cli_live|cli_diff|test_ots_stream|test_ots|cli_args|cli_docs)$'

# The one file currently mutated and its saved copy: restored on any exit.
current= saved="$build/mutate.saved"
restore() {
    if [ -n "$current" ]; then
        cp "$saved" "$current"
        current=
    fi
}
trap restore EXIT
trap 'restore; echo; echo "interrupted: the tree is restored"; exit 130' INT TERM

# apply FILE FROM TO [LINE]: replaces the single occurrence of FROM (in line LINE when given);
# fails if it is not exactly one.
apply() {
    python3 - "$1" "$2" "$3" "${4:-}" <<'PY'
import sys
path, old, new, line = sys.argv[1:5]
text = open(path, encoding="utf-8").read()
if line:
    lines = text.split("\n")
    k = int(line) - 1
    n = lines[k].count(old) if 0 <= k < len(lines) else 0
    if n == 1:
        lines[k] = lines[k].replace(old, new)
        text = "\n".join(lines)
else:
    n = text.count(old)
    text = text.replace(old, new)
if n != 1:
    sys.stderr.write("%s:%s: the snippet occurs %d times, not once: %s\n" % (path, line, n, old))
    sys.exit(1)
open(path, "w", encoding="utf-8").write(text)
PY
}

# Parses the list into parallel arrays.
files=() froms=() tos=() whys=() lines=() suites=()
why= file= from= to= lineno= suite=
flush() {
    if [ -n "$file" ]; then
        files+=("$file"); froms+=("$from"); tos+=("$to"); whys+=("$why")
        lines+=("$lineno"); suites+=("$suite")
    fi
    why= file= from= to= lineno= suite=
}
while IFS= read -r line || [ -n "$line" ]; do
    case $line in
        '#'*) ;;
        '') flush ;;
        'why: '*) why=${line#why: } ;;
        'file: '*) file=${line#file: } ;;
        'from: '*) from=${line#from: } ;;
        'to: '*) to=${line#to: } ;;
        'line: '*) lineno=${line#line: } ;;
        'suites: '*) suite=${line#suites: } ;;
        'suites:') suite= ;;
        *) echo "$list: cannot read: $line"; exit 2 ;;
    esac
done <"$list"
flush

if [ -n "$check" ]; then
    # one interpreter for the whole list (the list's own parser above has run already)
    python3 - "$here" "$list" <<'PY'
import sys
here, path = sys.argv[1:3]
mutants, cur = [], {}
for line in open(path, encoding="utf-8").read().split("\n") + [""]:
    if line.startswith("#"):
        continue
    if not line:
        if "file" in cur:
            mutants.append(cur)
        cur = {}
        continue
    key, _, value = line.partition(": ")
    cur[key] = value
bad = 0
for m in mutants:
    try:
        text = open(here + "/" + m["file"], encoding="utf-8").read()
        if m.get("line"):
            lines = text.split("\n")
            k = int(m["line"]) - 1
            n = lines[k].count(m["from"]) if 0 <= k < len(lines) else 0
        else:
            n = text.count(m["from"])
    except OSError as e:
        n = -1
    if n != 1:
        bad += 1
        print("%s: the snippet occurs %s, not once: %s" % (m["file"], "no file" if n < 0 else "%d times" % n, m["from"]))
print("%d mutants, %d with a snippet that is not in its file exactly once" % (len(mutants), bad))
sys.exit(1 if bad else 0)
PY
    exit
fi

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc $sanitize >/dev/null ||
    exit 2
cmake --build "$build" -j "$jobs" >/dev/null 2>&1 || { echo "the unmutated tree does not build"; exit 2; }
: >"$log"
# A mutant may loop allocating: each suite's memory is capped (4 GB of address space) so a
# runaway one fails alone instead of starving the machine (not under --sanitize: ASan reserves
# terabytes of address space).
memcap=
[ -n "$sanitize" ] || memcap='ulimit -v 4194304;'
if [ -n "$skip_baseline" ]; then
    echo "baseline skipped (-B)" >>"$log"
elif ! (cd "$build" && eval "$memcap" && ctest -j "$jobs" -E "$exclude" --timeout "$timeout" >>"$log" 2>&1); then
    echo "the unmutated tree fails its suites (see $log); fix that first"
    exit 2
fi

# targets_of REGEX: the build targets the suites of REGEX (test_x|cli_y|...) run: a cmocka
# suite is its own target, a CLI script needs the CLI.
targets_of() {
    local t out=
    for t in $(printf '%s' "$1" | tr '|' ' ' | tr -d '$^()'); do
        case $t in
            test_*) out="$out --target $t" ;;
            *) case $out in *"--target onescope"*) ;; *) out="$out --target onescope" ;; esac ;;
        esac
    done
    printf '%s' "$out"
}

# run_mutant I: the verdict of mutant I on the tree as it is now.
run_mutant() {
    local s=${suites[$1]}
    if [ -n "$only_suites" ]; then
        # shellcheck disable=SC2046
        if ! cmake --build "$build" -j "$jobs" $(targets_of "$only_suites") >>"$log" 2>&1; then
            echo "killed (build)"; return
        fi
        if ! (cd "$build" && eval "$memcap" && ctest -j "$jobs" -R "^($only_suites)" --timeout "$timeout" $stop >>"$log" 2>&1); then
            echo "killed"; return
        fi
        echo SURVIVED; return
    fi
    if [ -n "$s" ]; then
        # The suites that read this file first: most kills need only them.
        # shellcheck disable=SC2046
        if ! cmake --build "$build" -j "$jobs" $(targets_of "$s") >>"$log" 2>&1; then
            echo "killed (build)"; return
        fi
        if ! (cd "$build" && eval "$memcap" && ctest -j "$jobs" -R "^($s)" -E "$exclude" --timeout "$timeout" $stop >>"$log" 2>&1); then
            echo "killed (first)"; return
        fi
    fi
    if ! cmake --build "$build" -j "$jobs" >>"$log" 2>&1; then
        echo "killed (build)"; return
    fi
    local rest=$exclude
    [ -z "$s" ] || rest="$exclude|^($s)"
    [ -z "$s" ] || [ -n "$full" ] || rest="$rest|$slow"
    if ! (cd "$build" && eval "$memcap" && ctest -j "$jobs" -E "$rest" --timeout "$timeout" $stop >>"$log" 2>&1); then
        echo "killed"; return
    fi
    echo SURVIVED
}

killed=0 survived=0 broken=0 total=0
survivors=()
declare -A fkill fsurv
results="$build/mutate-results.txt"
: >"$results"
modules=$(printf '%s\n' "${files[@]}" | sort -u | wc -l)
for i in "${!files[@]}"; do
    f=${files[$i]}
    case $f in *"$filter"*) ;; *) continue ;; esac
    if [ -n "$only" ]; then case $only in *",$i,"*) ;; *) continue ;; esac; fi
    total=$((total + 1))
    cp "$here/$f" "$saved"
    current="$here/$f"
    if ! apply "$here/$f" "${froms[$i]}" "${tos[$i]}" "${lines[$i]}"; then
        restore
        broken=$((broken + 1))
        continue
    fi
    echo "== mutant $i: $f: ${whys[$i]}" >>"$log"
    verdict=$(run_mutant "$i")
    restore
    if [ "$verdict" = SURVIVED ]; then
        survived=$((survived + 1))
        fsurv[$f]=$((${fsurv[$f]:-0} + 1))
        survivors+=("$f: ${whys[$i]} (${froms[$i]} -> ${tos[$i]})")
    else
        killed=$((killed + 1))
        fkill[$f]=$((${fkill[$f]:-0} + 1))
    fi
    printf '%3d %-28s %-15s %s\n' "$i" "$f" "$verdict" "${whys[$i]}"
    printf '%s\t%s\n' "$verdict" "${whys[$i]}" >>"$results"
done
# Leave the build folder matching the tree.
cmake --build "$build" -j "$jobs" >/dev/null 2>&1

run=$((killed + survived))
echo
echo "per file (killed/run):"
for f in $(printf '%s\n' "${!fkill[@]}" "${!fsurv[@]}" | sort -u); do
    k=${fkill[$f]:-0} n=$((${fkill[$f]:-0} + ${fsurv[$f]:-0}))
    awk -v f="$f" -v k="$k" -v n="$n" 'BEGIN { printf "  %-32s %3d/%-3d %5.1f%%\n", f, k, n, 100 * k / n }'
done
echo "$total mutants over $modules files: $killed killed, $survived survived, $broken not applied"
if [ "$run" -gt 0 ]; then
    awk -v k="$killed" -v n="$run" 'BEGIN { printf "killed: %.1f%%\n", 100 * k / n }'
fi
for s in "${survivors[@]}"; do echo "survived: $s"; done
[ "$broken" -eq 0 ]
