"""Argument checks for every value that crosses into ctypes.

ctypes converts a Python int to a C integer by keeping its low bits: -1 becomes SIZE_MAX,
2**32 + 1 becomes 1, 2**63 a negative step. So every integer argument goes through
:func:`integer` first, which raises TypeError for a value that is not an integer and ValueError
naming the argument and its allowed range for one outside it. Names (shapes, operations,
sources, axes) go through :func:`choice`, numbers through :func:`real`, byte arguments through
:func:`data`.
"""

from __future__ import annotations

import ctypes
import math
import numbers
import operator
from typing import Any, Optional, Sequence

import numpy as np

__all__ = [
    "integer",
    "choice",
    "real",
    "data",
    "text",
    "unit",
    "UNITS",
    "flag",
    "parse_options",
    "U8",
    "U16",
    "U32",
    "I32",
    "U64",
    "I64",
    "SIZE",
]

# The ranges of the C types the wrappers pass, as (lowest, highest).
U8 = (0, 2**8 - 1)
U16 = (0, 2**16 - 1)
U32 = (0, 2**32 - 1)
I32 = (-(2**31), 2**31 - 1)
U64 = (0, 2**64 - 1)
I64 = (-(2**63), 2**63 - 1)
SIZE = (0, 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1)


def integer(name: str, value: Any, lo_hi: Sequence[int] = U64, *, error: type = ValueError) -> int:
    """value as a Python int, checked against the closed range lo_hi.

    bool is refused (True is not a count), and so is anything without __index__ (a float, a
    string): TypeError. A NumPy integer is taken. Out of range: `error` (ValueError unless
    the caller says otherwise) naming the argument, the range and the value."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, not bool")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None
    lo, hi = lo_hi
    if hi < lo:  # an index into nothing (a replay without steps)
        raise error(f"{name}: there is none to take (the range is empty), not {v}")
    if not lo <= v <= hi:
        raise error(f"{name} must be {lo} to {hi}, not {v}")
    return v


def choice(name: str, value: Any, allowed: Sequence[str]) -> int:
    """The index of the name value in allowed; ValueError naming every allowed value."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str (one of {', '.join(allowed)}), not "
                        f"{type(value).__name__}")
    try:
        return list(allowed).index(value)
    except ValueError:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not "
                         f"{value!r}") from None


def real(name: str, value: Any, *, lo: Optional[float] = None, above: Optional[float] = None,
         finite: bool = True) -> float:
    """value as a float: a real number (TypeError otherwise; bool refused), finite unless told,
    never NaN, >= lo and > above when given (ValueError naming the argument)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    v = float(value)
    if math.isnan(v) or (finite and math.isinf(v)):
        raise ValueError(f"{name} must be a finite number, not {v}")
    if lo is not None and not v >= lo:
        raise ValueError(f"{name} must be >= {lo}, not {v}")
    if above is not None and not v > above:
        raise ValueError(f"{name} must be above {above}, not {v}")
    return v


def data(name: str, value: Any) -> bytes:
    """A bytes-like argument (bytes, bytearray, memoryview, a contiguous buffer) as bytes;
    TypeError for a str (which has no one byte encoding here) or anything else."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        raise TypeError(f"{name} must be bytes-like, not str (encode it first)")
    try:
        return bytes(memoryview(value).cast("B"))
    except TypeError:
        raise TypeError(f"{name} must be bytes-like, not {type(value).__name__}") from None


def parse_options(max_input_bytes: Any) -> Any:
    """The onescope_parse_options of a call's max_input_bytes (0: the library's limit)."""
    from . import _lib

    return _lib.ParseOptions(integer("max_input_bytes", max_input_bytes, SIZE), None)


def flag(name: str, value: Any) -> bool:
    """A bool argument (True, False or a NumPy bool); TypeError otherwise, so a string such
    as "no" is not taken for True."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    return bool(value)


#: The unit names the CLI's --unit takes, with their metres per unit.
UNITS = {"m": 1.0, "cm": 0.01, "mm": 0.001}


def unit(name: str, value: Any) -> float:
    """Metres per unit from a unit as the CLI's --unit takes it: "m", "cm", "mm" or a number
    of metres above 0 (finite)."""
    if isinstance(value, str):
        if value not in UNITS:
            raise ValueError(f"{name} must be 'm', 'cm', 'mm' or a number of metres above 0, "
                             f"not {value!r}")
        return UNITS[value]
    return real(name, value, above=0.0)


def text(name: str, value: Any) -> str:
    """A str argument; TypeError otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return value
