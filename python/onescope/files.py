"""Checking files of any format, with every error of an OTS file listed."""

from __future__ import annotations

import ctypes
import os
from typing import List

from . import _check, _lib
from ._lib import lib
from .errors import FormatError, path_bytes

__all__ = ["validate"]


def validate(path: "str | bytes | os.PathLike[str]", max_errors: int = 20,
             max_input_bytes: int = 0) -> List[FormatError]:
    """The errors of the file at ``path`` ([] when it is valid), as the CLI's ``validate``
    finds them: the format comes from the content, the file is streamed (memory does not grow
    with it), a binary format gives its first error only, and a .pvt or .anm every error in
    file order up to ``max_errors`` (a syntax error ends the list). Nothing is raised for a
    bad file; a bad argument raises ValueError."""
    max_errors = _check.integer("max_errors", max_errors, (1, 100000))
    opts = _check.parse_options(max_input_bytes)
    found: List[FormatError] = []

    def keep(user: int, err: "ctypes._Pointer[_lib.Error]") -> None:
        found.append(FormatError._from_c(err.contents))

    callback = _lib.ErrorCallback(keep)  # alive for the call
    opts.on_error = ctypes.cast(callback, ctypes.c_void_p)
    opts.max_errors = max_errors
    err = _lib.Error()
    fmt = ctypes.c_int(0)
    lib.onescope_file_validate(path_bytes(path), ctypes.byref(opts), ctypes.byref(fmt),
                               ctypes.byref(err))
    return found
