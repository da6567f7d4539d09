#!/usr/bin/env python3
"""docs/architecture.md's layer table, checked against the built objects.

    layers.py SOURCE_DIR "LIB_OBJECTS" "CLI_OBJECTS"

(each list ';'-separated, as CMake's $<TARGET_OBJECTS:...> gives it). What is checked:

- every src/*.c is in exactly one row of the table, and every file the table names exists;
- a library object calls only functions defined in its own layer or a layer above it in the
  table (a lower layer), read from `nm`: what an object leaves undefined and another defines;
- only src/file.c and src/file_stream.c call the C library's file functions (open, read,
  mmap, rename, ...): every other file of the files row is built from their steps, so the
  system calls sit where test_io_faults wraps them;
- src/file.c knows no format: of the formats row it calls only src/format.c (detection and
  the codec table);
- the CLI's objects use no private library function (onescope_os_*): only the public API;
- every private header src/*.h (but internal.h) is named in the paragraph that lists them.

Each broken rule prints one line naming the file, the symbol and both layers; exit 1.
"""
import os
import re
import subprocess
import sys

SYSTEM_FILES = {"src/file.c", "src/file_stream.c"}
FILE_CALLS = {
    "open", "open64", "openat", "openat64", "fopen", "fopen64", "read", "pread", "pread64",
    "write", "pwrite", "pwrite64", "mmap", "mmap64", "munmap", "rename", "renameat", "unlink",
    "unlinkat", "fsync", "fdatasync", "stat", "stat64", "fstat", "fstat64", "lstat", "lstat64",
    "fstatat", "fstatat64", "mkdir", "opendir", "readlink", "realpath", "ftruncate",
    "ftruncate64", "lseek", "lseek64", "mkstemp", "mkstemp64", "fcntl", "fcntl64",
}


def table(text):
    """The layer rows, bottom up: [(name, [files])]."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"\| ([^|]+?) \| ([^|]+?) \| ", line)
        if m is None or m.group(1) in ("layer", "---"):
            continue
        rows.append((m.group(1), re.findall(r"`(src/[a-z0-9_]+\.c)`", m.group(2))))
    return rows


def symbols(obj):
    """(defined, undefined) global names of one object file."""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        part = line.split()
        if len(part) < 2:
            continue
        if part[1] == "U":
            undefined.add(part[0])
        elif part[1] in "TDBRCVW":
            defined.add(part[0])
    return defined, undefined


def source_of(obj):
    """src/foo.c for .../src/foo.c.o (CMake's object naming)."""
    m = re.search(r"(src/[a-z0-9_]+\.c)\.o(bj)?$", obj.replace(os.sep, "/"))
    return m.group(1) if m else None


def main():
    root, lib_objs, cli_objs = sys.argv[1], sys.argv[2].split(";"), sys.argv[3].split(";")
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    rows = table(text)
    bad = []
    layer, rank = {}, {}
    for i, (name, files) in enumerate(rows):
        for f in files:
            if f in layer:
                bad.append(f"{f}: in two rows of the table, {layer[f]} and {name}")
            layer[f], rank[f] = name, i
    on_disk = {"src/" + f for f in os.listdir(os.path.join(root, "src")) if f.endswith(".c")}
    for f in sorted(on_disk - set(layer)):
        bad.append(f"{f}: in no row of docs/architecture.md's layer table")
    for f in sorted(set(layer) - on_disk):
        bad.append(f"{f}: named by the layer table but not in src/")
    files_row = next((files for name, files in rows if name == "files"), [])
    if not files_row:
        bad.append("docs/architecture.md: the table has no row named files")
    formats_row = next((files for name, files in rows if name.startswith("formats")), [])
    if not formats_row:
        bad.append("docs/architecture.md: the table has no row named formats")

    defines, needs = {}, {}
    for obj in lib_objs:
        src = source_of(obj)
        if src is None:
            bad.append(f"{obj}: not an object of a src/*.c file")
            continue
        d, u = symbols(obj)
        needs[src] = u
        for s in d:
            defines[s] = src
    if set(needs) != on_disk:
        bad.append(f"the objects given are not src/*.c's: {sorted(set(needs) ^ on_disk)}")
    for src in sorted(needs):
        for s in sorted(needs[src]):
            d = defines.get(s)
            if d is not None and d != src and src in rank and d in rank and rank[d] > rank[src]:
                bad.append(f"{src} ({layer[src]}) calls {s} of {d} ({layer[d]}), a layer "
                           "above its own")
            if s in FILE_CALLS and src not in SYSTEM_FILES:
                bad.append(f"{src} ({layer.get(src, '?')}) calls {s}: only "
                           f"{' and '.join(sorted(SYSTEM_FILES))} make file system calls")
            if src == "src/file.c" and d in formats_row and d != "src/format.c":
                bad.append(f"src/file.c calls {s} of {d}: file.c knows no format (its glue "
                           "goes in src/<format>_file.c)")
    for obj in cli_objs:
        _, u = symbols(obj)
        for s in sorted(u):
            if s.startswith("onescope_os_") and s in defines:
                bad.append(f"{obj}: the CLI calls the private {s} of {defines[s]}")

    private = text[text.index("Private headers"):]
    private = private[:private.index("\n\n")]
    for h in sorted(os.listdir(os.path.join(root, "src"))):
        if h.endswith(".h") and h != "internal.h" and f"`{h}`" not in private:
            bad.append(f"src/{h}: a private header the architecture page does not list")

    for line in bad:
        print("FAIL: " + line)
    print(f"layers: {len(rows)} rows, {len(needs)} library objects, {len(cli_objs)} CLI objects, "
          f"{sum(len(u) for u in needs.values())} undefined names checked: "
          f"{'ok' if not bad else str(len(bad)) + ' broken'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
