# The libraries' exported symbols follow the API's naming rules, and match the headers:
# - every global symbol carries the project prefix (onescope_), so linking libonescope can
#   never clash with a user's own names;
# - every exported function is onescope_<module>_... for a module of the list below, never says _destroy (the verb is _free) and never _get_
#   (getters are onescope_<type>_<noun>);
# - every ONESCOPE_API declaration in include/onescope/ is exported, and nothing else is.
# $1 the static, $2 the shared library; $3 (optional) the include directory (default: the
# source tree's include/).
set -eu
include=${3:-$(cd "$(dirname "$0")/../include" && pwd)}

# One prefix per public header's module; a longer prefix before a shorter one is not needed
# (each is followed by "_").
modules='buffer|error|parse_options|sim|link|op|hash|field|replay|pose_cache|pose|live|ots'
modules="$modules|soa|ghost|file|format|version|diff|module|world|recording|number"

status=0
fail() {
    echo "FAIL: $1" >&2
    shift
    printf '  %s\n' "$@" >&2
    status=1
    lib_failed=1
}

# What the headers declare: the first onescope_ name followed by "(" on an ONESCOPE_API line.
declared=$(grep -h 'ONESCOPE_API' "$include"/onescope/*.h | grep -v '#define' |
    grep -o 'onescope_[a-z0-9_]*(' | tr -d '(' | sort -u)
[ -n "$declared" ] || fail "no ONESCOPE_API declarations found under $include"

libs=0
for lib in "$1" "$2"; do
    libs=$((libs + 1))
    lib_failed=0
    if [ "${lib%.a}" != "$lib" ]; then
        table=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $2, $3}')
    else
        table=$(nm -D --defined-only "$lib" | awk 'NF == 3 {print $2, $3}')
    fi
    syms=$(printf '%s\n' "$table" | awk '{print $2}')
    # A static library cannot hide the internal onescope_os_ helpers (the shared one does, and
    # is checked for them like for anything else): leave them out of the naming checks there.
    funcs=$(printf '%s\n' "$table" | awk '$1 == "T" {print $2}' | sort -u)
    if [ "${lib%.a}" != "$lib" ]; then
        funcs=$(printf '%s\n' "$funcs" | grep -v '^onescope_os_' || true)
    fi

    bad=$(printf '%s\n' "$syms" |
        grep -v -E '^(onescope_|_init$|_fini$|_edata$|_end$|__bss_start$)' | grep -v '^$' || true)
    [ -z "$bad" ] || fail "$lib exports symbols without the onescope_ prefix:" $bad

    bad=$(printf '%s\n' "$funcs" |
        grep -v -E "^onescope_($modules)_[a-z0-9_]+\$" | grep -v '^$' || true)
    [ -z "$bad" ] || fail "$lib exports functions outside onescope_<module>_...:" $bad

    bad=$(printf '%s\n' "$funcs" | grep -E '_destroy($|_)' || true)
    [ -z "$bad" ] || fail "$lib exports _destroy functions (the verb is _free):" $bad

    bad=$(printf '%s\n' "$funcs" | grep -E '_get_|_get$' || true)
    [ -z "$bad" ] || fail "$lib exports getters named with get:" $bad

    bad=$(comm -23 <(printf '%s\n' "$declared") <(printf '%s\n' "$funcs"))
    [ -z "$bad" ] || fail "$lib does not export these ONESCOPE_API declarations:" $bad

    bad=$(comm -13 <(printf '%s\n' "$declared") <(printf '%s\n' "$funcs"))
    [ -z "$bad" ] || fail "$lib exports functions no header declares with ONESCOPE_API:" $bad

    count=$(printf '%s\n' "$funcs" | grep -c '^onescope_' || true)
    [ "$lib_failed" -eq 1 ] ||
        echo "$lib: $count onescope_ functions, all declared, all named by the rules"
done
[ "$status" -eq 0 ] && echo "$libs passed, 0 failed"
exit "$status"
