# Installs the build into a scratch prefix, then builds a consumer with CMake and pkg-config.
set -eu
build=$1 prefix=$2 cc=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$prefix" && mkdir -p "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S "$here" -B "$prefix/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$prefix/build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64" "$prefix/build/consumer" | grep -q "wrote"
"$prefix/build/consumer_static" | grep -q "wrote"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig" \
  "$cc" "$here/consumer.c" -o "$prefix/pc-consumer" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig" pkg-config --cflags --libs onescope)
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64" "$prefix/pc-consumer" | grep -q "wrote"
[ -x "$prefix/bin/onescope" ]
echo "1 passed, 0 failed"
