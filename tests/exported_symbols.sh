# Every global symbol the libraries define carries the project prefix (onescope_), so linking
# libonescope can never clash with a user's own names. $1 the static, $2 the shared library.
set -eu
status=0
for lib in "$@"; do
    if [ "${lib%.a}" != "$lib" ]; then
        syms=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}')
    else
        syms=$(nm -D --defined-only "$lib" | awk 'NF == 3 {print $3}')
    fi
    bad=$(printf '%s\n' "$syms" | grep -v -E '^(onescope_|_init$|_fini$|_edata$|_end$|__bss_start$)' | grep -v '^$' || true)
    count=$(printf '%s\n' "$syms" | grep -c '^onescope_' || true)
    if [ -n "$bad" ]; then
        echo "FAIL: $lib exports symbols without the onescope_ prefix:" >&2
        printf '  %s\n' $bad >&2
        status=1
    fi
    echo "$lib: $count onescope_ symbols"
done
[ "$status" -eq 0 ] && echo "$# passed, 0 failed"
exit "$status"
