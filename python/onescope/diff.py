"""diff: the structured comparison of two files, once the CLI issue provides it in C.

PLACEHOLDER (issue 15, "diff, where the CLI issue provides it"): the C diff is being written
by another helper at the same time as this package. When it lands (a public onescope_diff_*
function and its result struct in include/onescope/), wrap it here: mirror the result struct
in _lib.py (and add it to MIRRORED so tests/test_abi.py checks it), return a result object
with the same fields, and raise FormatError for an unreadable input. Until then the function
refuses rather than guess: no comparison is implemented in Python.
"""

from __future__ import annotations

from typing import Any

__all__ = ["diff"]


def diff(a: Any, b: Any) -> Any:
    """Not available yet: the library has no diff function in this build."""
    raise NotImplementedError(
        "onescope.diff needs the library's diff function (issue 15 / the CLI issue), "
        "which this build does not have yet"
    )
