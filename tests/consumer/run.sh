# Installs the build into a scratch prefix, then builds consumers with CMake and pkg-config:
# - with COMPONENTS static: both libraries link and run;
# - the shared library alone, with Box3D's package, pkg-config and Threads hidden: it must
#   configure, link and run (it links them all privately);
# - COMPONENTS static with a dependency hidden: configure fails and names it;
# - pkg-config, shared and static: --static gives Box3D's -L folder, and a static link of
#   libonescope.a from its line alone runs.
# Every consumer checks that the runtime version equals the header's.
set -eu
build=$1 prefix=$2 cc=$3
# CONSUMER_CMAKE_ARGS: more -D arguments for every consumer configure (box3d_prefix.sh hides a
# prefix with it)
read -r -a extra <<<"${CONSUMER_CMAKE_ARGS:-}"
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$prefix" && mkdir -p "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
export LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64"
pcpath="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig"
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
with_box3d=0
PKG_CONFIG_PATH=$pcpath pkg-config --static --libs onescope | grep -q -- '-lbox3d' && with_box3d=1

cmake -S "$here" -B "$prefix/build" -DCMAKE_PREFIX_PATH="$prefix" "${extra[@]}" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$prefix/build" >/dev/null
"$prefix/build/consumer" | grep -q "wrote" || fail "shared consumer"
"$prefix/build/consumer_static" | grep -q "wrote" || fail "static consumer"

# the shared library alone needs no dependency package
log=$(cmake -S "$here" -B "$prefix/build-shared" -DCMAKE_PREFIX_PATH="$prefix" "${extra[@]}" \
    -DCMAKE_C_COMPILER="$cc" -DCONSUMER_STATIC=OFF -DCMAKE_DISABLE_FIND_PACKAGE_box3d=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_DISABLE_FIND_PACKAGE_Threads=ON) ||
    fail "a consumer of onescope::onescope did not configure without its dependencies' packages"
printf '%s\n' "$log" | grep -q "only onescope::onescope (shared)" ||
    fail "no status line about the static target left out: $log"
cmake --build "$prefix/build-shared" >/dev/null
"$prefix/build-shared/consumer" | grep -q "wrote" || fail "shared-only consumer"

# asking for the static library with a dependency hidden fails, naming it
hide=PkgConfig name=PkgConfig
[ "$with_box3d" -eq 0 ] || hide=box3d name="box3d (CMake package)"
if log=$(cmake -S "$here" -B "$prefix/build-missing" -DCMAKE_PREFIX_PATH="$prefix" "${extra[@]}" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_DISABLE_FIND_PACKAGE_$hide=ON 2>&1); then
    fail "COMPONENTS static configured with $hide hidden"
fi
printf '%s\n' "$log" | grep -qF "onescope::onescope_static needs $name, not found" ||
    fail "COMPONENTS static without $hide: no message naming it: $log"

# pkg-config, shared
pc() { PKG_CONFIG_PATH=$pcpath pkg-config "$@" onescope; }
# shellcheck disable=SC2046 # the flags are a list
"$cc" "$here/consumer.c" -o "$prefix/pc-consumer" $(pc --cflags --libs)
"$prefix/pc-consumer" | grep -q "wrote" || fail "pkg-config consumer"
# pkg-config --static: Box3D's folder is on the line, and the line links libonescope.a
static_libs=$(pc --static --libs)
if [ "$with_box3d" -eq 1 ]; then
    found=0
    for flag in $static_libs; do
        case $flag in -L*) ls "${flag#-L}"/libbox3d.* >/dev/null 2>&1 && found=1 ;; esac
    done
    [ "$found" -eq 1 ] || fail "pkg-config --static --libs names no folder holding libbox3d: $static_libs"
fi
# shellcheck disable=SC2046,SC2001
"$cc" -DONESCOPE_STATIC "$here/consumer.c" -o "$prefix/pc-consumer-static" $(pc --cflags) \
    $(printf '%s\n' "$static_libs" | sed 's/-lonescope\( \|$\)/-l:libonescope.a\1/')
"$prefix/pc-consumer-static" | grep -q "wrote" || fail "pkg-config --static consumer"
[ -x "$prefix/bin/onescope" ] || fail "no CLI installed"
# found as a user would: the man page and the bash completion (docs/cli.md)
[ -f "$prefix/share/man/man1/onescope.1" ] || fail "no man page in share/man/man1"
[ -f "$prefix/share/bash-completion/completions/onescope" ] || fail "no bash completion installed"
bash -c '. "$1" && complete -p onescope' _ "$prefix/share/bash-completion/completions/onescope" \
    >/dev/null || fail "the installed completion does not load"
echo "1 passed, 0 failed"
