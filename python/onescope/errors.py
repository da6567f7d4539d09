"""The one exception the package raises for a bad input or a refused call."""

from __future__ import annotations

import ctypes
from typing import Optional

from . import _lib
from ._lib import lib

__all__ = ["FormatError", "Code"]


class Code:
    """The library's error codes (include/onescope/error.h); values never change."""

    OK = 0
    ARGUMENT = 1
    NOMEM = 2
    IO = 3
    TOO_LARGE = 4
    TRUNCATED = 5
    MAGIC = 6
    VERSION = 7
    FLAGS = 8
    RESERVED = 9
    RANGE = 10
    TRAILING = 11
    DUPLICATE = 12
    NOT_FINITE = 13
    UTF8 = 14
    LENGTH = 15
    OPERATION = 16
    SYNTAX = 17
    TYPE = 18
    BAD_STATE = 19
    MISMATCH = 20
    UNSUPPORTED = 21
    ENGINE = 22
    MODULE = 23


class FormatError(Exception):
    """A call the library refused, with where and why.

    Attributes: ``code`` (int, see :class:`Code`), ``name`` (the code's bare name, e.g.
    ``"truncated"``), ``input`` (the file or buffer name), ``offset`` (byte offset or None),
    ``line`` and ``column`` (1-based for JSON inputs, None otherwise), ``field``,
    ``expected``, ``found``. ``str(error)`` is the library's one-line message
    (onescope_error_format), e.g. ``"x.ospc: offset 6: flags: expected 0, found 3"``.
    A verify that fails this way also sets ``verdict`` (an onescope.Verdict: INVALID,
    MODULE_ERROR or NO_HASH_ROWS; None for every other call) and, for MODULE_ERROR,
    ``result``, the VerifyResult whose first_row is the row the module failed making.
    """

    verdict = None  # set by a verify: an onescope.Verdict
    result = None  # set by a verify with a module error: an onescope.VerifyResult

    def __init__(
        self,
        code: int,
        input: str,
        offset: Optional[int],
        line: Optional[int],
        column: Optional[int],
        field: str,
        expected: str,
        found: str,
        message: str,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.input = input
        self.offset = offset
        self.line = line
        self.column = column
        self.field = field
        self.expected = expected
        self.found = found
        self.message = message

    @property
    def name(self) -> str:
        return lib.onescope_error_name(self.code).decode()

    def __str__(self) -> str:
        return self.message

    @classmethod
    def _from_c(cls, err: _lib.Error) -> "FormatError":
        size = lib.onescope_error_format(ctypes.byref(err), None, 0) + 1
        buf = ctypes.create_string_buffer(size)
        lib.onescope_error_format(ctypes.byref(err), buf, size)

        def text(raw: bytes) -> str:
            return raw.decode("utf-8", "replace")

        return cls(
            err.code,
            text(err.input),
            err.offset if err.has_offset else None,
            err.line or None,
            err.column or None,
            text(err.field),
            text(err.expected),
            text(err.found),
            text(buf.value),
        )


def check(rc: int, err: _lib.Error) -> None:
    """Raises the FormatError err describes when rc is not OK."""
    if rc != Code.OK:
        raise FormatError._from_c(err)


def path_bytes(path: "str | bytes | object") -> bytes:
    """A path argument as the bytes the C library takes (os.fsencode: any PathLike)."""
    import os

    return os.fsencode(path)  # type: ignore[arg-type]
