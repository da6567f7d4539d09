# One format rule for every reader (issue 21.6): an OTS file's "format" member must be where
# detection looks (the first 1 MiB, ONESCOPE_FORMAT_DETECT_BYTES). validate (which streams and
# detects from its first read), dump and convert (which read the whole file) give the same
# verdict on the same file; the library's parse is checked in tests/test_ots.c and Python's
# Clip.open in python/tests/test_ots.py.
. "$(dirname "$0")/common.sh"

# A valid clip whose members come after PAD bytes of white space (valid JSON either way).
clip() { # clip PAD FILE: "format" after the padding, "version" before it
    python3 - "$1" "$2" <<'PY'
import sys
pad, path = int(sys.argv[1]), sys.argv[2]
body = ('"source": "maya", "frame_range": [1, 2], "fps": 24.0, '
        '"coordinate_system": {"up": "y", "hand": "right", "unit": "meters", "rot_order": "xyz", '
        '"rot_repr_anim": "euler_deg", "rot_repr_rest": "quat_wxyz"}, '
        '"pegs": [{"name": "root-P", "parent": null, "rest_pivot": [0, 0, 0], '
        '"rest_rotation": [1, 0, 0, 0], "keyframes": [{"frame": 1, "pos": [0, 0, 0], '
        '"rot_quat": [1, 0, 0, 0], "scl": [1, 1, 1], "interp": "LINEAR"}]}], "cameras": []}')
with open(path, "w") as f:
    f.write('{"version": 4,' + " " * pad + '"format": "octo_anm", ' + body)
PY
}
clip 100 "$SCRATCH/near.anm"
clip $((1048576 - 100)) "$SCRATCH/edge.anm"  # the format member ends inside the first 1 MiB
clip $((1048576 - 20)) "$SCRATCH/across.anm" # it starts inside and ends past it
clip 1048576 "$SCRATCH/far.anm"              # it starts past it

for f in near edge; do
    expect_exit 0 "$ONESCOPE" validate "$SCRATCH/$f.anm"
    expect_grep "$f.anm: valid anm" "$SCRATCH/out"
    expect_exit 0 "$ONESCOPE" dump "$SCRATCH/$f.anm"
    expect_exit 0 "$ONESCOPE" convert "$SCRATCH/$f.anm" "$SCRATCH/$f.ospc"
    expect_exit 0 "$ONESCOPE" validate "$SCRATCH/$f.ospc"
done

for f in across far; do
    expect_exit 1 "$ONESCOPE" validate "$SCRATCH/$f.anm"
    expect_grep "$f.anm: offset 0: format: expected a known format" "$SCRATCH/err"
    if [ "$(wc -l <"$SCRATCH/err")" -eq 1 ]; then ok; else bad "validate $f: not one line"; fi
    expect_exit 1 "$ONESCOPE" dump "$SCRATCH/$f.anm"
    expect_grep "$f.anm: offset 0: format: expected a known format" "$SCRATCH/err"
    expect_exit 1 "$ONESCOPE" convert "$SCRATCH/$f.anm" "$SCRATCH/$f.ospc"
    if [ -e "$SCRATCH/$f.ospc" ]; then bad "convert wrote $f.ospc from a refused file"; else ok; fi
    # standard input goes through the whole-file read path: the same verdict
    expect_exit 1 "$ONESCOPE" validate - <"$SCRATCH/$f.anm"
    expect_grep "format: expected a known format" "$SCRATCH/err"
done

finish
