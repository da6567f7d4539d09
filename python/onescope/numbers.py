"""Numbers as text, as the library and the CLI write them (onescope_number_format).

The shortest decimal that reads back as exactly the same value (a double, or with
:func:`format_float` a 32-bit float), the closest one when several are as short, in the
notation of C's ``%g`` at that many digits: ``format_number(0.1) == "0.1"``, ``100.0`` is
``"1e+02"``, ``-0.0`` is ``"-0"``; NaN is ``"nan"``, infinities ``"inf"`` and ``"-inf"``.
Python's ``repr`` finds the same digits; only the spelling of some values differs
(``repr(100.0)`` is ``"100.0"``). These give the CLI's text, character for character.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numbers

from ._lib import NUMBER_MAX_LENGTH, lib

__all__ = ["format_number", "format_float"]


def _real(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"value must be a number, not {type(value).__name__}")
    return float(value)


def format_number(value: Any) -> str:
    """The shortest text that reads back as the double ``value`` (any real number)."""
    buf = ctypes.create_string_buffer(NUMBER_MAX_LENGTH + 1)
    n = lib.onescope_number_format(_real(value), buf, len(buf))
    return buf.raw[:n].decode("ascii")


def format_float(value: Any) -> str:
    """The shortest text that reads back as the same 32-bit float: ``value`` is first rounded
    to the nearest float, as a C float or a NumPy float32 would hold it."""
    buf = ctypes.create_string_buffer(NUMBER_MAX_LENGTH + 1)
    n = lib.onescope_number_format_float(_real(value), buf, len(buf))
    return buf.raw[:n].decode("ascii")
