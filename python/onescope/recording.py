"""Module recordings (OSTM v2, docs/recording.md) and the modules that run them: the test
module, or a plug-in loaded from a shared library (docs/module.md, "Plug-ins")."""

from __future__ import annotations

import ctypes
import os
from typing import Optional

import numpy as np

from . import _check, _lib
from ._lib import lib
from .errors import Code, FormatError, check, path_bytes
from .replay import VerifyResult

PathLike = "str | bytes | os.PathLike[str]"


class Module:
    """A module table the library runs recordings with. :meth:`test` is the library's integer
    test module; :meth:`load` opens a plug-in (the library's ``onescope_module_load``: its
    entry symbol, its ABI and its table checked, the library kept loaded for the process)."""

    def __init__(self, table: int, origin: str) -> None:
        self._table = ctypes.c_void_p(table)
        self.origin = origin
        head = ctypes.cast(self._table, ctypes.POINTER(_lib.ModuleHead)).contents
        self.id: str = head.id.decode("utf-8", "replace")
        self.version: str = head.version.decode("utf-8", "replace")

    @classmethod
    def test(cls) -> "Module":
        return cls(lib.onescope_module_test(), "the library")

    @classmethod
    def load(cls, path: PathLike) -> "Module":
        """Loads a plug-in; FormatError with the library's line when it is refused (a file
        dlopen refuses, no entry symbol, another ABI, a table that fails the check)."""
        table = ctypes.c_void_p()
        err = _lib.Error()
        check(lib.onescope_module_load(path_bytes(path), ctypes.byref(table), ctypes.byref(err)), err)
        return cls(table.value, os.fsdecode(path))

    def __repr__(self) -> str:
        return f"<onescope.Module {self.id} {self.version} from {self.origin}>"


class Recording:
    """An OSTM v2 recording: the module's id and version, its setup blob, an optional start
    snapshot, each step's input blob and optional hash rows. The container is checked when it
    is read; the blobs by :meth:`check` or :meth:`verify` with the module."""

    def __init__(self, handle: ctypes.c_void_p, name: str) -> None:
        self._handle = handle
        self.name = name

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            lib.onescope_recording_free(self._handle)
            self._handle = None

    @classmethod
    def open(cls, path: PathLike, *, max_input_bytes: int = 0) -> "Recording":
        opts = _check.parse_options(max_input_bytes)
        handle = ctypes.c_void_p()
        err = _lib.Error()
        check(
            lib.onescope_recording_read_file(
                path_bytes(path), ctypes.byref(opts), ctypes.byref(handle), ctypes.byref(err)
            ),
            err,
        )
        return cls(handle, os.fsdecode(path))

    @classmethod
    def from_bytes(
        cls, data: bytes, name: str = "<bytes>", *, max_input_bytes: int = 0
    ) -> "Recording":
        data = _check.data("data", data)
        name = _check.text("name", name)
        opts = _check.parse_options(max_input_bytes)
        handle = ctypes.c_void_p()
        err = _lib.Error()
        check(
            lib.onescope_recording_parse(
                data, len(data), name.encode(), ctypes.byref(opts), ctypes.byref(handle),
                ctypes.byref(err),
            ),
            err,
        )
        return cls(handle, name)

    # ---- reading ----

    @property
    def module_id(self) -> str:
        return lib.onescope_recording_module_id(self._handle).decode("utf-8", "replace")

    @property
    def module_version(self) -> str:
        return lib.onescope_recording_module_version(self._handle).decode("utf-8", "replace")

    @property
    def flags(self) -> int:
        return lib.onescope_recording_flags(self._handle)

    @property
    def step_count(self) -> int:
        return lib.onescope_recording_step_count(self._handle)

    @property
    def setup(self) -> bytes:
        size = ctypes.c_size_t()
        data = lib.onescope_recording_setup(self._handle, ctypes.byref(size))
        return ctypes.string_at(data, size.value) if size.value else b""

    @property
    def start_snapshot(self) -> Optional[bytes]:
        size = ctypes.c_size_t()
        data = lib.onescope_recording_start_snapshot(self._handle, ctypes.byref(size))
        return ctypes.string_at(data, size.value) if data else None

    @property
    def hash_rows(self) -> Optional["np.ndarray"]:
        """The recorded step_count + 1 hash rows (uint64), or None without them."""
        if not self.flags & 0x0001:  # ONESCOPE_RECORDING_FLAG_HASH_ROWS
            return None
        n = self.step_count + 1
        return np.fromiter(
            (lib.onescope_recording_hash_row(self._handle, i) for i in range(n)),
            dtype=np.uint64, count=n,
        )

    def step_input(self, index: int) -> bytes:
        """Step `index`'s input blob (0-based; IndexError outside 0..step_count-1)."""
        index = _check.integer("index", index, (0, self.step_count - 1), error=IndexError)
        data = ctypes.POINTER(ctypes.c_uint8)()
        size = ctypes.c_size_t()
        if lib.onescope_recording_step_input(
            self._handle, index, ctypes.byref(data), ctypes.byref(size)
        ):
            raise IndexError(f"step {index} of {self.step_count}")
        return ctypes.string_at(data, size.value) if size.value else b""

    def to_bytes(self) -> bytes:
        buf = _lib.Buffer()
        err = _lib.Error()
        check(
            lib.onescope_recording_write(self._handle, None, ctypes.byref(buf), ctypes.byref(err)),
            err,
        )
        try:
            return ctypes.string_at(buf.data, buf.size)
        finally:
            lib.onescope_buffer_free(ctypes.byref(buf))

    # ---- with the module ----

    def _module(self, module: Module) -> Module:
        if not isinstance(module, Module):
            raise TypeError(f"module must be an onescope.Module, not {type(module).__name__}")
        return module

    def check(self, module: Module) -> None:
        """That the module is the one the file names (FormatError with code MODULE naming
        both otherwise), then the setup and every input with the module's own checks."""
        m = self._module(module)
        err = _lib.Error()
        check(
            lib.onescope_recording_check(self._handle, m._table, self.name.encode(), ctypes.byref(err)),
            err,
        )

    def verify(self, module: Module) -> VerifyResult:
        """Runs the recording through the module and compares every hash row. A mismatch is a
        result, not an exception; any other failure (another module, a module error at a
        step, no hash rows) raises FormatError with the library's line."""
        m = self._module(module)
        result = _lib.VerifyResult()
        err = _lib.Error()
        rc = lib.onescope_recording_verify(
            self._handle, m._table, None, ctypes.byref(result), self.name.encode(),
            ctypes.byref(err),
        )
        if rc == Code.OK:
            return VerifyResult(True, result.rows_checked, None, None, None, None, "")
        if rc == Code.MISMATCH:
            return VerifyResult(
                False, result.rows_checked, result.first_row, result.first_step,
                result.expected, result.actual, str(FormatError._from_c(err)),
            )
        raise FormatError._from_c(err)

    def __repr__(self) -> str:
        return (
            f"<onescope.Recording {self.name!r}: module {self.module_id} {self.module_version}, "
            f"{self.step_count} steps>"
        )
