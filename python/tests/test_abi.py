"""The ctypes mirror of each C struct has the C struct's size and field offsets.

A small C program, generated from onescope._lib.MIRRORED and compiled here against
include/onescope/, prints sizeof and every offsetof; ctypes must agree on each number."""

import os
import shutil
import subprocess

import pytest

from conftest import ROOT
from onescope import _lib


def _c_program():
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "onescope/onescope.h"',
             "int main(void) {"]
    for cname, struct in _lib.MIRRORED.items():
        lines.append(f'    printf("{cname} %zu\\n", sizeof({cname}));')
        for field, _ in struct._fields_:
            lines.append(f'    printf("{cname}.{field} %zu\\n", offsetof({cname}, {field}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def test_struct_layouts_match_the_headers(tmp_path):
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        pytest.skip(f"no C compiler ({cc}) to compare layouts with")
    src = tmp_path / "abi.c"
    exe = tmp_path / "abi"
    src.write_text(_c_program())
    subprocess.run([cc, "-std=c17", "-I", str(ROOT / "include"), "-o", str(exe), str(src)],
                   check=True)
    c_numbers = dict(line.rsplit(" ", 1) for line in
                     subprocess.run([str(exe)], capture_output=True, text=True,
                                    check=True).stdout.splitlines())
    py_numbers = {}
    for cname, struct in _lib.MIRRORED.items():
        py_numbers[cname] = str(__import__("ctypes").sizeof(struct))
        for field, _ in struct._fields_:
            py_numbers[f"{cname}.{field}"] = str(getattr(struct, field).offset)
    assert len(c_numbers) == len(py_numbers)
    wrong = {k: (py_numbers[k], c_numbers[k]) for k in c_numbers if c_numbers[k] != py_numbers[k]}
    assert not wrong, f"ctypes vs C (size or offset): {wrong}"
