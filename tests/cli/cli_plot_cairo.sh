# plot loads cairo at run time (tools/plot/cairo_api.c): the CLI itself does not need it, SVG
# never touches it, and a PNG without a usable cairo is refused before any input is read, in
# one line, with no file. $4: a folder holding a libcairo.so.2 without cairo's functions.
. "$(dirname "$0")/common.sh"
FAKE=$4
T="$SRC/testdata"
"$ONESCOPE" plot "$T/test-2d-600.ostm" -o "$SCRATCH/probe.svg" >"$SCRATCH/out" 2>"$SCRATCH/err"
if grep -q "no plot support" "$SCRATCH/err"; then echo "SKIPPED: built without cairo"; exit 77; fi

# no libcairo (nor fontconfig, freetype, X11 behind it) among what the binary needs
if ! command -v readelf >/dev/null; then echo "SKIPPED: readelf missing (binutils)"; exit 77; fi
needed=$(readelf -d "$ONESCOPE_BIN" | grep NEEDED)
case $needed in
    *cairo* | *fontconfig* | *X11*) bad "onescope links what only a PNG needs: $needed" ;;
    *libc.so*) ok ;;
    *) bad "readelf -d shows no NEEDED libc: $needed" ;;
esac

# the real cairo draws (the PNG signature)
expect_exit 0 "$ONESCOPE" plot "$T/test-2d-600.ostm" -o "$SCRATCH/real.png"
if [ "$(head -c 8 "$SCRATCH/real.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then ok; else bad "real.png is not a PNG"; fi

# a cairo without its functions: one line naming OUT and the missing function, exit 1, no file
LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" expect_exit 1 \
    "$ONESCOPE" plot "$T/test-2d-600.ostm" -o "$SCRATCH/fake.png"
if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ] &&
    grep -qF "fake.png: PNG output needs cairo, which could not be loaded: libcairo has no cairo_arc" "$SCRATCH/err"; then
    ok
else
    bad "the refusal is not its one line: $(cat "$SCRATCH/err")"
fi
if [ ! -e "$SCRATCH/fake.png" ]; then ok; else bad "fake.png written"; fi
# the refusal comes before the input is read: a missing input is not what it reports
LD_LIBRARY_PATH="$FAKE" expect_exit 1 "$ONESCOPE" plot "$SCRATCH/absent.ostm" -o "$SCRATCH/fake.png"
if grep -q "PNG output needs cairo" "$SCRATCH/err" && ! grep -q absent "$SCRATCH/err"; then ok; else bad "the input was read first: $(cat "$SCRATCH/err")"; fi
# SVG is our own writer: the same cairo changes nothing
LD_LIBRARY_PATH="$FAKE" expect_exit 0 "$ONESCOPE" plot "$T/test-2d-600.ostm" -o "$SCRATCH/fake.svg"
if cmp -s "$SCRATCH/fake.svg" "$SCRATCH/probe.svg"; then ok; else bad "fake.svg differs from probe.svg"; fi
finish
