"""OSTM replays and the integer test-module world. Format: docs/test-module.md."""

from __future__ import annotations

import ctypes
import enum
import os
from typing import List, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _check, _lib
from ._check import I32, U8, U16, U32
from ._lib import lib
from .errors import Code, FormatError, check, path_bytes

__all__ = ["Replay", "Sim", "Op", "Setup", "Link", "RunResult", "VerifyResult", "Verdict",
           "OP_NAMES"]

PathLike = Union[str, bytes, "os.PathLike[str]"]

#: Operation names by code (onescope_op_code), as the library names them; index 0 is unused.
OP_NAMES = tuple(lib.onescope_op_name(code).decode("ascii") for code in range(6))
#: Columns of a body-state row: alive, still_count, position x y z, velocity x y z.
BODY_COLUMNS = ("alive", "still_count", "x", "y", "z", "vx", "vy", "vz")


class Setup(NamedTuple):
    """The 6-byte setup: dimensions (2 or 3), body_count (1..64), seed."""

    dimensions: int
    body_count: int
    seed: int


class Link(NamedTuple):
    """The link block: role (1 sender, 2 receiver, 3 fields only), body, transfer_step."""

    role: int
    body: int
    transfer_step: int


class Op(NamedTuple):
    """One operation: ``Op("impulse", body, (dx, dy, dz))``, ``Op("teleport", body, (x, y,
    z))``, ``Op("remove", body)``, ``Op("gravity", value=(g, 0, 0))``, ``Op("spawn", value=(x,
    y, z))``."""

    name: str
    body: int = 0
    value: tuple = (0, 0, 0)

    def _c(self) -> _lib.Op:
        """The C operation, every field checked (a name from OP_NAMES, body 0..255, three
        32-bit values); the library then checks the operation's own rules."""
        code = _check.choice("op name", self.name, OP_NAMES[1:]) + 1
        value = tuple(self.value)
        if len(value) != 3:
            raise ValueError(f"op value must be 3 integers, not {len(value)}")
        v = [_check.integer(f"op value[{i}]", x, I32) for i, x in enumerate(value)]
        return _lib.Op(code, _check.integer("op body", self.body, U8), (ctypes.c_int32 * 3)(*v))

    @classmethod
    def _from_c(cls, op: _lib.Op) -> "Op":
        return cls(OP_NAMES[op.code], op.body, tuple(op.value))


def _bodies(sim: ctypes.c_void_p) -> "np.ndarray":
    n = lib.onescope_sim_body_count(sim)
    out = np.zeros((n, 8), dtype=np.int32)
    state = _lib.BodyState()
    for i in range(n):
        lib.onescope_sim_body(sim, i, ctypes.byref(state))
        out[i] = (state.alive, state.still_count, *state.position, *state.velocity)
    return out


def _setup(dimensions: int, body_count: int, seed: int) -> _lib.SimSetup:
    """The C setup, each field in its C type's range (the library checks the rest)."""
    return _lib.SimSetup(
        _check.integer("dimensions", dimensions, U8),
        _check.integer("body_count", body_count, U8),
        _check.integer("seed", seed, U32),
    )


def _link(link: Sequence[int]) -> _lib.LinkBlock:
    role, body, transfer_step = Link(*link)
    return _lib.LinkBlock(
        _check.integer("link role", role, U8),
        _check.integer("link body", body, U8),
        _check.integer("link transfer_step", transfer_step, U16),
    )


def _ops(ops: Sequence[Op]) -> List[_lib.Op]:
    if isinstance(ops, (str, bytes, bytearray)) or not hasattr(ops, "__iter__"):
        raise TypeError(f"ops must be a sequence of Op, not {type(ops).__name__}")
    out = []
    for op in ops:
        if not isinstance(op, Op):
            raise TypeError(f"ops must hold Op items, not {type(op).__name__}")
        out.append(op._c())
    return out


def encode_ops(dimensions: int, ops: Sequence[Op]) -> bytes:
    """The input bytes of one step made of these operations (checked by the library)."""
    dimensions = _check.integer("dimensions", dimensions, U8)
    out = bytearray()
    err = _lib.Error()
    for c in _ops(ops):
        size = lib.onescope_op_size(c.code)
        buf = (ctypes.c_uint8 * max(size, 1))()
        n = lib.onescope_op_encode(dimensions, ctypes.byref(c), buf, size, ctypes.byref(err))
        if n == 0:
            raise FormatError._from_c(err)
        out += bytes(buf[:n])
    return bytes(out)


def decode_ops(dimensions: int, data: bytes, name: str = "<input>") -> List[Op]:
    """The operations of one step's input bytes (the library's reader). Raises FormatError."""
    dimensions = _check.integer("dimensions", dimensions, U8)
    data = _check.data("data", data)
    reader = _lib.OpReader()
    keep = ctypes.create_string_buffer(data, len(data))
    lib.onescope_op_reader_init(ctypes.byref(reader), dimensions, keep, len(data), name.encode(), 0)
    op = _lib.Op()
    err = _lib.Error()
    out = []
    while True:
        rc = lib.onescope_op_reader_next(ctypes.byref(reader), ctypes.byref(op), ctypes.byref(err))
        if rc == 0:
            return out
        if rc < 0:
            raise FormatError._from_c(err)
        out.append(Op._from_c(op))


class Sim:
    """The integer test-module world, stepped from Python.

        sim = onescope.Sim(dimensions=3, body_count=8, seed=1)
        sim.step([onescope.Op("impulse", 0, (100, 0, 0))])
        sim.bodies   # body_count x 8 int32: alive, still, x y z, vx vy vz
    """

    def __init__(
        self,
        dimensions: int = 3,
        body_count: int = 1,
        seed: int = 0,
        link: Optional[Link] = None,
        *,
        snapshot: Optional[bytes] = None,
        _handle: Optional[ctypes.c_void_p] = None,
    ) -> None:
        if _handle is not None:
            self._handle = _handle
            return
        d = lib.onescope_sim_def_default()
        d.setup = _setup(dimensions, body_count, seed)
        if link is not None:
            d.link = _link(link)
        if snapshot is not None:
            snapshot = _check.data("snapshot", snapshot)
        self._handle = ctypes.c_void_p()
        err = _lib.Error()
        if snapshot is None:
            rc = lib.onescope_sim_create(
                ctypes.byref(d), None, ctypes.byref(self._handle), ctypes.byref(err)
            )
        else:
            rc = lib.onescope_sim_create_from_snapshot(
                ctypes.byref(d), snapshot, len(snapshot), b"<snapshot>", None,
                ctypes.byref(self._handle), ctypes.byref(err),
            )
        check(rc, err)

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            lib.onescope_sim_free(self._handle)
            self._handle = None

    def step(self, ops: Union[Sequence[Op], bytes, None] = None) -> None:
        """Runs one step with these operations (or raw input bytes). An invalid input
        raises FormatError and leaves the world as it was."""
        if isinstance(ops, (bytes, bytearray, memoryview)):
            data = _check.data("ops", ops)
        else:
            data = encode_ops(self.dimensions, [] if ops is None else ops)
        err = _lib.Error()
        check(lib.onescope_sim_step(self._handle, data, len(data), ctypes.byref(err)), err)

    @property
    def dimensions(self) -> int:
        return lib.onescope_sim_dimensions(self._handle)

    @property
    def host_step(self) -> int:
        return lib.onescope_sim_host_step(self._handle)

    @property
    def gravity(self) -> int:
        return lib.onescope_sim_gravity(self._handle)

    @property
    def hash(self) -> int:
        """XXH3-64 of the snapshot bytes."""
        return lib.onescope_sim_hash(self._handle)

    @property
    def bodies(self) -> "np.ndarray":
        """Every body (removed ones too), body count x 8 int32 (BODY_COLUMNS), a copy."""
        return _bodies(self._handle)

    def snapshot(self) -> bytes:
        size = lib.onescope_sim_snapshot_size(self._handle)
        buf = ctypes.create_string_buffer(size)
        lib.onescope_sim_snapshot(self._handle, buf, size)
        return buf.raw

    def field(self, which: str) -> "np.ndarray":
        """The "density" (81 values) or "occupancy" (128) field; worlds with a link only."""
        names = ("density", "occupancy")
        fid = _check.choice("field", which, names)
        count = (81, 128)[fid]
        out = np.zeros(count, dtype=np.int32)
        err = _lib.Error()
        check(lib.onescope_sim_field(self._handle, fid, out.ctypes.data, count, ctypes.byref(err)), err)
        return out


class RunResult(NamedTuple):
    """What :meth:`Replay.run` returns: ``hashes`` (rows, uint64: row 0 before any input,
    row i after step i-1), ``host_steps`` (rows, uint64), ``expected`` (the recorded rows, or
    None) and ``bodies`` (one body-count x 8 int32 array per row, when asked for)."""

    hashes: "np.ndarray"
    host_steps: "np.ndarray"
    expected: Optional["np.ndarray"]
    bodies: Optional[List["np.ndarray"]]


class Verdict(enum.IntEnum):
    """What a verify decided (the library's onescope_verdict, include/onescope/replay.h): the
    code to branch on, never the message. Rows: row 0 is the start world, row r the world after
    step r - 1."""

    #: the file, or its module, failed before a row was compared (raised, with the error)
    INVALID = 0
    #: every hash row (and every keyframe table) matched
    PASS = 1
    #: hash row first_row differs: expected against actual
    HASH_MISMATCH = 2
    #: every hash row through first_row matched, but the keyframe table there differs from the
    #: world: the module's hash misses a value (the table_* fields)
    TABLE_MISMATCH = 3
    #: the module failed making row first_row (the start world at 0, else step first_row - 1);
    #: raised, with the module's error
    MODULE_ERROR = 4
    #: the file holds no hash rows to verify (raised)
    NO_HASH_ROWS = 5
    #: every row matched, but the file holds no step: only row 0 was compared (ok is True; CI
    #: should not take it for a pass)
    NO_STEPS = 6


class VerifyResult(NamedTuple):
    """What a verify returns (:meth:`Replay.verify`, :meth:`Recording.verify`): ``ok``;
    ``rows_checked``; when not ok the first differing ``first_row``, its host step
    ``first_step``, the recorded ``expected`` and the recomputed ``actual`` hash, and
    ``message``, the library's one-line text. ``verdict`` (:class:`Verdict`) says which: PASS
    or NO_STEPS when ok, HASH_MISMATCH or TABLE_MISMATCH when not (the other verdicts are
    raised as :class:`FormatError`, whose ``verdict`` and ``result`` say them).
    ``keyframes_checked``: the keyframe tables compared with the world (module recordings).
    With TABLE_MISMATCH (the hash rows matched, a keyframe table at first_row did not; expected
    and actual are then that row's one hash): ``table_differing`` values differ there, the
    first in the entity ``table_entity``, value ``table_value`` (its index in
    :attr:`Recording.value_names`; None for an entity only one side holds), ``table_in_file``
    and ``table_in_world`` whether each side holds the entity, and ``table_recorded`` and
    ``table_found`` the two values (None for a side without the entity); else 0, None and
    False."""

    ok: bool
    rows_checked: int
    first_row: Optional[int]
    first_step: Optional[int]
    expected: Optional[int]
    actual: Optional[int]
    message: str
    verdict: Verdict = Verdict.PASS
    keyframes_checked: int = 0
    table_differing: int = 0
    table_entity: Optional[int] = None
    table_value: Optional[int] = None
    table_in_file: bool = False
    table_in_world: bool = False
    table_recorded: Optional[float] = None
    table_found: Optional[float] = None


_NO_VALUE = 2**32 - 1  # UINT32_MAX: an entity only one side holds


def _verify_outcome(rc: int, result: "_lib.VerifyResult", err: "_lib.Error") -> VerifyResult:
    """A verify as the package says it, by its verdict (never by the code: a module that
    refuses a step with E_MISMATCH is a module error, not a hash mismatch): PASS and NO_STEPS
    are ok, HASH_MISMATCH and TABLE_MISMATCH are results, any other failure raises FormatError
    with the library's line, its ``verdict`` and, for a module error, the ``result`` naming the
    row."""
    verdict = Verdict(result.verdict)
    table = verdict == Verdict.TABLE_MISMATCH
    common = dict(
        verdict=verdict,
        keyframes_checked=result.keyframes_checked,
        table_differing=result.table_differing if table else 0,
        table_entity=result.table_entity if table else None,
        table_value=result.table_value if table and result.table_value != _NO_VALUE else None,
        table_in_file=table and result.table_in_file,
        table_in_world=table and result.table_in_world,
        table_recorded=result.table_recorded if table and result.table_in_file else None,
        table_found=result.table_found if table and result.table_in_world else None,
    )
    if rc == Code.OK:
        return VerifyResult(True, result.rows_checked, None, None, None, None, "", **common)
    failure = FormatError._from_c(err)
    if verdict in (Verdict.HASH_MISMATCH, Verdict.TABLE_MISMATCH):
        return VerifyResult(
            False, result.rows_checked, result.first_row, result.first_step,
            result.expected, result.actual, str(failure), **common,
        )
    failure.verdict = verdict
    if verdict == Verdict.MODULE_ERROR:
        failure.result = VerifyResult(
            False, result.rows_checked, result.first_row, result.first_step, None, None,
            str(failure), **common,
        )
    raise failure


class Replay:
    """An OSTM v1 replay: a setup, an optional link block and start snapshot, one input per
    step and optional hash rows. Open with :meth:`open` / :meth:`from_bytes`, or build with
    :meth:`create` and :meth:`append`."""

    def __init__(self, handle: ctypes.c_void_p, name: str) -> None:
        self._handle = handle
        self.name = name

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            lib.onescope_replay_free(self._handle)
            self._handle = None

    @classmethod
    def open(cls, path: PathLike, *, max_input_bytes: int = 0) -> "Replay":
        opts = _check.parse_options(max_input_bytes)
        handle = ctypes.c_void_p()
        err = _lib.Error()
        check(
            lib.onescope_replay_read_file(
                path_bytes(path), ctypes.byref(opts), ctypes.byref(handle), ctypes.byref(err)
            ),
            err,
        )
        return cls(handle, os.fsdecode(path))

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>", *, max_input_bytes: int = 0) -> "Replay":
        data = _check.data("data", data)
        name = _check.text("name", name)
        opts = _check.parse_options(max_input_bytes)
        handle = ctypes.c_void_p()
        err = _lib.Error()
        check(
            lib.onescope_replay_parse(
                data, len(data), name.encode(), ctypes.byref(opts), ctypes.byref(handle),
                ctypes.byref(err),
            ),
            err,
        )
        return cls(handle, name)

    @classmethod
    def create(
        cls, dimensions: int, body_count: int, seed: int, link: Optional[Link] = None
    ) -> "Replay":
        """An empty replay (no steps); the setup and link are checked as the parser would."""
        setup = _setup(dimensions, body_count, seed)
        lb = None if link is None else ctypes.byref(_link(link))
        handle = ctypes.c_void_p()
        err = _lib.Error()
        check(
            lib.onescope_replay_create(
                ctypes.byref(setup), lb, None, ctypes.byref(handle), ctypes.byref(err)
            ),
            err,
        )
        return cls(handle, "<created>")

    # ---- reading ----

    @property
    def setup(self) -> Setup:
        s = lib.onescope_replay_setup(self._handle)
        return Setup(s.dimensions, s.body_count, s.seed)

    @property
    def link(self) -> Optional[Link]:
        k = lib.onescope_replay_link(self._handle)
        return None if k.role == 0 else Link(k.role, k.body, k.transfer_step)

    @property
    def flags(self) -> int:
        return lib.onescope_replay_flags(self._handle)

    @property
    def step_count(self) -> int:
        return lib.onescope_replay_step_count(self._handle)

    @property
    def start_step(self) -> int:
        """The start snapshot's host step (0 without one)."""
        return lib.onescope_replay_start_step(self._handle)

    @property
    def start_snapshot(self) -> Optional[bytes]:
        if not lib.onescope_replay_has_start_snapshot(self._handle):
            return None
        size = ctypes.c_size_t()
        data = lib.onescope_replay_start_snapshot(self._handle, ctypes.byref(size))
        return ctypes.string_at(data, size.value)

    @property
    def hash_rows(self) -> Optional["np.ndarray"]:
        """The recorded step_count + 1 hash rows (uint64, a copy), or None."""
        if not lib.onescope_replay_has_hash_rows(self._handle):
            return None
        rows = lib.onescope_replay_hash_rows(self._handle)
        return np.ctypeslib.as_array(rows, shape=(self.step_count + 1,)).copy()

    @property
    def input_bytes(self) -> int:
        return lib.onescope_replay_input_bytes(self._handle)

    def step_input(self, index: int) -> bytes:
        """The raw input bytes of step `index` (0-based; IndexError outside 0..step_count-1,
        TypeError for a non-integer)."""
        count = self.step_count
        index = _check.integer("index", index, (0, count - 1), error=IndexError)
        data = ctypes.POINTER(ctypes.c_uint8)()
        size = ctypes.c_size_t()
        if lib.onescope_replay_step_input(self._handle, index, ctypes.byref(data), ctypes.byref(size)):
            raise IndexError(f"step {index} of {self.step_count}")
        return ctypes.string_at(data, size.value) if size.value else b""

    def ops(self, index: int) -> List[Op]:
        """The operations of step `index`."""
        return decode_ops(self.setup.dimensions, self.step_input(index), self.name)

    # ---- building ----

    def append(self, ops: Union[Sequence[Op], bytes] = ()) -> None:
        """Appends one step (operations or raw input bytes, checked). Drops hash rows."""
        err = _lib.Error()
        if isinstance(ops, (bytes, bytearray, memoryview)):
            data = _check.data("ops", ops)
            rc = lib.onescope_replay_append_step(self._handle, data, len(data), ctypes.byref(err))
        else:
            c_ops = _ops(ops)
            arr = (_lib.Op * max(len(c_ops), 1))(*c_ops)
            rc = lib.onescope_replay_append_ops(self._handle, arr, len(c_ops), ctypes.byref(err))
        check(rc, err)

    def set_start_snapshot(self, snapshot: Optional[bytes]) -> None:
        err = _lib.Error()
        data = b"" if snapshot is None else _check.data("snapshot", snapshot)
        check(
            lib.onescope_replay_set_start_snapshot(
                self._handle, data if data else None, len(data), ctypes.byref(err)
            ),
            err,
        )

    def compute_hash_rows(self) -> None:
        """Runs the replay and stores its hash rows."""
        err = _lib.Error()
        check(lib.onescope_replay_compute_hash_rows(self._handle, ctypes.byref(err)), err)

    def to_bytes(self) -> bytes:
        buf = _lib.Buffer()
        err = _lib.Error()
        check(lib.onescope_replay_write(self._handle, None, ctypes.byref(buf), ctypes.byref(err)), err)
        try:
            return ctypes.string_at(buf.data, buf.size)
        finally:
            lib.onescope_buffer_free(ctypes.byref(buf))

    def write(self, path: PathLike) -> None:
        err = _lib.Error()
        check(lib.onescope_replay_write_file(self._handle, path_bytes(path), ctypes.byref(err)), err)

    # ---- running ----

    def start_world(self) -> Sim:
        """The world the replay starts from (its start snapshot, or the setup)."""
        handle = ctypes.c_void_p()
        err = _lib.Error()
        check(
            lib.onescope_replay_start_world(self._handle, None, ctypes.byref(handle), ctypes.byref(err)),
            err,
        )
        return Sim(_handle=handle)

    def run(self, *, bodies: bool = False) -> RunResult:
        """Runs every step: the hash at every step boundary as an array, and with
        ``bodies=True`` every body's state at every boundary."""
        rows = self.step_count + 1
        hashes = np.zeros(rows, dtype=np.uint64)
        steps = np.zeros(rows, dtype=np.uint64)
        states: Optional[List[np.ndarray]] = [] if bodies else None

        def on_row(_user, row_p):
            row = row_p.contents
            hashes[row.index] = row.hash
            steps[row.index] = row.host_step
            if states is not None:
                states.append(_bodies(ctypes.c_void_p(row.sim)))
            return False

        callback = _lib.ReplayCallback(on_row)
        err = _lib.Error()
        check(lib.onescope_replay_run(self._handle, None, callback, None, ctypes.byref(err)), err)
        return RunResult(hashes, steps, self.hash_rows, states)

    def verify(self) -> VerifyResult:
        """Re-simulates and compares every recorded hash row. A mismatch is a result, not an
        exception; a replay without hash rows (and any other failure) raises FormatError."""
        result = _lib.VerifyResult()
        err = _lib.Error()
        rc = lib.onescope_replay_verify(
            self._handle, None, ctypes.byref(result), self.name.encode(), ctypes.byref(err)
        )
        return _verify_outcome(rc, result, err)

    def __repr__(self) -> str:
        s = self.setup
        return (
            f"<onescope.Replay {self.name!r}: {s.dimensions}D, {s.body_count} bodies, seed "
            f"{s.seed}, {self.step_count} steps>"
        )
