# The installed package finds the Box3D it was built with when that Box3D sits in a prefix of
# its own, known to the build only through CMAKE_PREFIX_PATH. Box3D's installed files (where
# this build found them) are copied to a scratch prefix, the library is configured against that
# copy with the original prefix ignored, installed, and tests/consumer/run.sh runs over it with
# the original prefix ignored too, so only the recorded hint can find Box3D.
# Usage: box3d_prefix.sh SOURCE_TREE SCRATCH C_COMPILER BOX3D_DIR   (exit 77: no Box3D)
set -eu
src=$1 scratch=$2 cc=$3 box3d_dir=$4
if [ -z "$box3d_dir" ] || [ ! -f "$box3d_dir/box3dConfig.cmake" ]; then
    echo "SKIPPED: this build has no Box3D"
    exit 77
fi
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# Box3D's config lives in PREFIX/lib/cmake/box3d (or lib64): its prefix is three levels up.
real=$(cd "$box3d_dir/../../.." && pwd)
libdir=$(basename "$(cd "$box3d_dir/../.." && pwd)")
rm -rf "$scratch" && mkdir -p "$scratch/box3d/$libdir/cmake" "$scratch/box3d/include"
cp -R "$box3d_dir" "$scratch/box3d/$libdir/cmake/"
cp "$real/$libdir"/libbox3d.* "$scratch/box3d/$libdir/"
cp -R "$real/include/box3d" "$scratch/box3d/include/"
# The ignore list keeps the real prefix (and so its Box3D) out of every search below.
ignore=-DCMAKE_SYSTEM_IGNORE_PREFIX_PATH="$real"
cmake -S "$src" -B "$scratch/build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
    -DONESCOPE_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$scratch/box3d" "$ignore" \
    >"$scratch/configure.log" 2>&1 || fail "configure against Box3D in $scratch/box3d: $(tail -5 "$scratch/configure.log")"
grep -q "Box3D found ($scratch/box3d/" "$scratch/configure.log" ||
    fail "the build did not take the Box3D copy: $(grep -i box3d "$scratch/configure.log")"
cmake --build "$scratch/build" -j2 >"$scratch/build.log" 2>&1 || fail "build: $(tail -5 "$scratch/build.log")"
CONSUMER_CMAKE_ARGS="$ignore" bash "$(dirname "$0")/run.sh" "$scratch/build" "$scratch/prefix" "$cc"
