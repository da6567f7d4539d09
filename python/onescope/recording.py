"""Module recordings (OSTM v2, docs/recording.md) and the modules that run them: the test
module, or a plug-in loaded from a shared library (docs/module.md, "Plug-ins")."""

from __future__ import annotations

import ctypes
import enum
import os
from typing import List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _check, _lib
from ._lib import lib
from .errors import Code, FormatError, check, path_bytes
from .replay import VerifyResult, _verify_outcome

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
        """The library's integer test module ("onescope.test", version "1"), which runs the
        test module's own v2 recordings."""
        return cls(lib.onescope_module_test(), "the library")

    @classmethod
    def box3d(cls) -> "Module":
        """The library's Box3D module ("onescope.box3d"); FormatError (code UNSUPPORTED) in a
        build without Box3D."""
        table = lib.onescope_module_box3d()
        if not table:
            raise FormatError(Code.UNSUPPORTED, "onescope.box3d", None, None, None, "module",
                              "a build with Box3D", "this library was built without it",
                              "onescope.box3d: module: expected a build with Box3D, found this "
                              "library was built without it")
        return cls(table, "the library")

    @classmethod
    def for_recording(cls, recording: "Recording") -> "Module":
        """The built-in module a recording names (the test module or Box3D, whatever the
        version: a version the module is not is refused when the file is run); ValueError
        for any other id: load its plug-in with :meth:`load`."""
        mid = recording.module_id
        if mid == "onescope.test":
            return cls.test()
        if mid == "onescope.box3d":
            return cls.box3d()
        raise ValueError(f"{recording.name}: its module {mid!r} is not built into the library: "
                         f"pass module=onescope.Module.load(PLUGIN)")

    def _table_struct(self) -> "_lib.ModuleTable":
        return ctypes.cast(self._table, ctypes.POINTER(_lib.ModuleTable)).contents

    def _value_name(self, index: int) -> Optional[str]:
        """The name of the table's named value `index` (module->values), None outside."""
        t = self._table_struct()
        if not t.holds("values") or index >= t.value_count:
            return None
        return t.values[index].name.decode("ascii", "replace")

    def _world_value_name(self, index: int) -> Optional[str]:
        t = self._table_struct()
        if not t.holds("world_values") or index >= t.world_value_count:
            return None
        return t.world_values[index].name.decode("ascii", "replace")

    @classmethod
    def load(cls, path: PathLike) -> "Module":
        """Loads a plug-in; FormatError with the library's line when it is refused (a file
        dlopen refuses, no entry symbol, another ABI, a table that fails the check)."""
        table = ctypes.c_void_p()
        err = _lib.Error()
        check(lib.onescope_module_load(path_bytes(path), ctypes.byref(table), ctypes.byref(err)), err)
        return cls(table.value, os.fsdecode(path))

    def check(
        self,
        setup: bytes,
        steps: int = 100,
        horizon: int = 4,
        restore_every: int = 32,
        start_snapshot: Optional[bytes] = None,
        *,
        inputs: Optional[Sequence[bytes]] = None,
    ) -> "ModuleCheckResult":
        """Runs the module from `setup` for `steps` steps and checks what the tools assume of
        it (the library's onescope_module_check_run; docs/module.md, "Checking a module before
        trusting it"): determinism, snapshot, restore, stages and hash, in that order. A
        snapshot round trip starts a restored world at steps 0, restore_every, 2 restore_every,
        ..., which runs `horizon` steps beside the original; with `start_snapshot` both worlds
        are restored from it instead of made from the setup. `inputs` holds each step's input
        (step i's is inputs[i], at least `steps` of them), passed to the module unchecked; None:
        every step's input is empty. A check that fails is a result; a module that cannot make
        or step its first world raises FormatError with the library's line."""
        setup = _check.data("setup", setup)
        steps = _check.integer("steps", steps, (1, _check.U64[1]))
        horizon = _check.integer("horizon", horizon, _check.U32)
        restore_every = _check.integer("restore_every", restore_every, (1, _check.U32[1]))
        d = lib.onescope_module_check_def_default()
        d.steps, d.horizon, d.restore_every = steps, horizon, restore_every
        if start_snapshot is not None:
            start_snapshot = _check.data("start_snapshot", start_snapshot)
            snap = ctypes.create_string_buffer(start_snapshot, len(start_snapshot))
            d.start_snapshot = ctypes.addressof(snap)
            d.start_snapshot_size = len(start_snapshot)
        feed = None
        if inputs is not None:
            feed = _inputs_of(inputs, steps)
            d.input = ctypes.cast(feed.callback, ctypes.c_void_p)
        out = _lib.ModuleCheckResult()
        err = _lib.Error()
        check(
            lib.onescope_module_check_run(
                self._table, setup, len(setup), ctypes.byref(d), None, ctypes.byref(out),
                ctypes.byref(err),
            ),
            err,
        )
        return ModuleCheckResult(
            out.steps, out.failed,
            [_outcome_of(k, out.checks[k]) for k in range(_lib.MODULE_CHECK_COUNT)],
        )

    def __repr__(self) -> str:
        return f"<onescope.Module {self.id} {self.version} from {self.origin}>"


class ModuleCheckFailure(NamedTuple):
    """The first failure of one check of :meth:`Module.check`: the step (0-based) after or
    during which it was seen; the stage just run (its index in the module's stage order) or
    None; the entity's index and id, or None for both; the named value that tells the two
    worlds apart (``"NAME[i]"`` for an element of a world value; "" when only the hash does)
    with ``values``, its value in the first and the second world (or before and after; 0.0
    when there is no value); the two hashes compared (for the hash check both are the hash
    that stayed); the first differing snapshot byte or None; and ``what``, the library's one
    line."""

    step: int
    stage: Optional[int]
    entity: Optional[int]
    entity_id: Optional[int]
    value: str
    values: Tuple[float, float]
    hashes: Tuple[int, int]
    offset: Optional[int]
    what: str


class ModuleCheckOutcome(NamedTuple):
    """One check: its name ("determinism", "snapshot", "restore", "stages", "hash"), status
    ("passed", "failed" or "skipped"), skipped_for (the slot the module lacks, when skipped;
    else None) and failure (when failed; else None)."""

    name: str
    status: str
    skipped_for: Optional[str]
    failure: Optional[ModuleCheckFailure]


class ModuleCheckResult(NamedTuple):
    """What :meth:`Module.check` returns: the steps run, how many checks failed, and every
    check's outcome in the library's order."""

    steps: int
    failed: int
    checks: List[ModuleCheckOutcome]

    def outcome(self, name: str) -> ModuleCheckOutcome:
        """The outcome of the check with this name (KeyError for another name)."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)


_CHECK_STATUS = ("passed", "failed", "skipped")  # onescope_module_check_status


class _CheckInputs:
    """Every step's input in one buffer, and the input callback that lends step i's bytes
    (they stay valid for the whole run, longer than the library asks)."""

    def __init__(self, blobs: List[bytes]) -> None:
        self.count = len(blobs)
        self.sizes = [len(b) for b in blobs]
        self.offsets = [0] * self.count
        for i in range(1, self.count):
            self.offsets[i] = self.offsets[i - 1] + self.sizes[i - 1]
        joined = b"".join(blobs)
        self.buffer = ctypes.create_string_buffer(joined, max(len(joined), 1))
        self.base = ctypes.addressof(self.buffer)
        self.callback = _lib.ModuleCheckInputFn(self._input)

    def _input(self, user: int, step: int, data, size, error) -> int:
        if step >= self.count:  # never: the library asks for steps 0..steps-1 only
            return lib.onescope_module_fail(
                error, Code.RANGE, _lib.MODULE_NO_OFFSET, b"inputs",
                b"an input for every step checked", f"none for step {step}".encode(),
            )
        n = self.sizes[step]
        data[0] = self.base + self.offsets[step] if n else None
        size[0] = n
        return Code.OK


def _inputs_of(inputs: Sequence[bytes], steps: int) -> _CheckInputs:
    if isinstance(inputs, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"inputs must be a sequence of each step's input bytes, not "
                        f"{type(inputs).__name__}")
    try:
        count = len(inputs)
    except TypeError:
        raise TypeError(f"inputs must be a sequence of each step's input bytes, not "
                        f"{type(inputs).__name__}") from None
    if count < steps:
        raise ValueError(f"inputs must hold an input for each of the {steps} steps, not {count}")
    return _CheckInputs([_check.data(f"inputs[{i}]", inputs[i]) for i in range(steps)])


def _outcome_of(kind: int, o: "_lib.ModuleCheckOutcome") -> ModuleCheckOutcome:
    def text(raw: bytes) -> str:
        return raw.decode("utf-8", "replace")

    name = text(lib.onescope_module_check_name(kind))
    status = _CHECK_STATUS[o.status]
    failure = None
    if status == "failed":
        f = o.failure
        no_entity = f.entity == _lib.MODULE_CHECK_NO_ENTITY
        failure = ModuleCheckFailure(
            f.step,
            None if f.stage == _lib.MODULE_CHECK_NO_STAGE else f.stage,
            None if no_entity else f.entity,
            None if no_entity else f.entity_id,
            text(f.value),
            (f.values[0], f.values[1]),
            (f.hashes[0], f.hashes[1]),
            f.offset if f.has_offset else None,
            text(f.what),
        )
    skipped_for = text(o.skipped_for) if status == "skipped" else None
    return ModuleCheckOutcome(name, status, skipped_for, failure)


class EntityRow(NamedTuple):
    """One row's entities: ids (uint64), digests (uint32), group bytes (count x groups)."""

    ids: "np.ndarray"
    hashes: "np.ndarray"
    groups: "np.ndarray"


class EntityDifference(NamedTuple):
    """An entity the recorded entity row and the world disagree on (the library's
    onescope_entity_difference): its id, whether the recorded row holds it (``recorded``) and
    whether the world does (``found``), both digests (0 for a side without it), and ``groups``,
    the indices of the value groups whose bytes differ (the first 64)."""

    id: int
    recorded: bool
    found: bool
    recorded_hash: int
    found_hash: int
    groups: List[int]


class ValueDifference(NamedTuple):
    """A value of a keyframe's table the world disagrees on (onescope_value_difference): the
    entity's ``id``; ``value``, the value's name as the file holds it; ``recorded``, the
    table's value; ``found``, the world's; ``in_file``, whether the table holds the entity
    (added in 0.5.0). An entity only one side holds is one difference of its own: ``value``,
    ``recorded`` and ``found`` are then None, and ``in_file`` says which side holds it."""

    id: int
    value: Optional[str]
    recorded: Optional[float]
    found: Optional[float]
    in_file: bool = True


class KeyframeUse(enum.IntEnum):
    """How an explanation judged the keyframe before its row (the library's
    onescope_keyframe_use; docs/recording.md, "Keyframes"): a keyframe is used only once it
    proves itself."""

    #: no keyframe before the row, none with a snapshot, or a module without restore
    NONE = 0
    #: restored, proven and used: the run started at its row
    USED = 1
    #: the module refused its snapshot (Explanation.restore_error says why)
    REFUSED = 2
    #: the world restored from it is not the recorded world at its row (its hash, an entity's
    #: digest or a value of its table differs): the module's snapshot leaves state out, or this
    #: build hashes another way
    SNAPSHOT_INCOMPLETE = 3
    #: it proved itself, but the run from it reproduces the recording at the row: this build's
    #: world parted from the recorded one before the keyframe, in state the hash misses
    NOT_REPRODUCED = 4


class Explanation(NamedTuple):
    """What :meth:`Recording.explain` found (the library's onescope_recording_explanation).

    The entities at ``row``: ``entities_recorded`` in the recorded entity row and
    ``entities_found`` in the world, ``differing`` of them differ, the first listed in
    ``listed``. Where the run started: ``start_row`` (0, or the keyframe it was restored from),
    ``steps_run`` the steps the module ran (runs from row 0 after a keyframe was not used
    included). ``restore_failed`` with ``restore_error``: the module refused the keyframe's
    snapshot. With keyframes: ``table_row`` (None without a table compared), the row of the
    table compared (the first on the way that differs from the world, possibly before row,
    else the first at or after row), whose values differ in ``values_differing`` of
    ``values_compared``, the first listed in ``values`` (those of the entities the entity rows
    name first).

    Added in 0.5.0: ``keyframe_use`` (:class:`KeyframeUse`) and ``keyframe_row`` (None with
    NONE) judge the keyframe before row; with SNAPSHOT_INCOMPLETE what disproved it:
    ``keyframe_hashes_differ`` with ``keyframe_hash_recorded`` and ``keyframe_hash_restored``
    (the restored world's hash against the recorded row; both None unless they differ), else ``keyframe_entity`` (an :class:`EntityDifference`), else ``keyframe_value`` (a
    :class:`ValueDifference`), None when not the reason. ``has_hash``: the file holds hash
    rows, and then ``hash_recorded`` and ``hash_found`` are the recorded row and the world's
    hash at row (else None)."""

    row: int
    entities_recorded: int
    entities_found: int
    differing: int
    listed: List[EntityDifference]
    start_row: int = 0
    restore_failed: bool = False
    steps_run: int = 0
    table_row: Optional[int] = None
    values_compared: int = 0
    values_differing: int = 0
    values: List[ValueDifference] = []
    restore_error: Optional[FormatError] = None
    keyframe_use: KeyframeUse = KeyframeUse.NONE
    keyframe_row: Optional[int] = None
    keyframe_hashes_differ: bool = False
    keyframe_hash_recorded: Optional[int] = None
    keyframe_hash_restored: Optional[int] = None
    keyframe_entity: Optional[EntityDifference] = None
    keyframe_value: Optional[ValueDifference] = None
    has_hash: bool = False
    hash_recorded: Optional[int] = None
    hash_found: Optional[int] = None


class Keyframe(NamedTuple):
    """A keyframe (docs/recording.md, "Keyframes"), as :meth:`Recording.keyframe` reads it from
    the file, no module needed: ``row``, the row it stands at ((index + 1) x K); ``snapshot``,
    the module's snapshot of the world there (b"" when the module has no snapshot slot);
    ``ids``, every entity's id (uint64); ``values``, an (entities x values) float64 array of
    their named values, column j named ``Recording.value_names[j]``."""

    row: int
    snapshot: bytes
    ids: "np.ndarray"
    values: "np.ndarray"


_NO_VALUE = 2**32 - 1  # UINT32_MAX in a value difference: an entity only the world holds


def _entity_difference(d: "_lib.EntityDifference") -> EntityDifference:
    return EntityDifference(d.id, d.recorded, d.found, d.recorded_hash, d.found_hash,
                            [g for g in range(64) if d.groups >> g & 1])


def _value_difference(d: "_lib.ValueDifference", names: List[str]) -> ValueDifference:
    if d.value == _NO_VALUE or not (d.in_file and d.found):  # the whole entity, one side's
        return ValueDifference(d.id, None, None, None, bool(d.in_file))
    name = names[d.value] if d.value < len(names) else None
    return ValueDifference(d.id, name, d.recorded, d.found_value, True)


class RecordingDiff(NamedTuple):
    """Where two recordings of one module part: the library's onescope_recording_diff_result,
    field for field (include/onescope/recording.h; docs/recording.md, "Diff"), as
    :func:`onescope.diff` or :meth:`Recording.diff` return it; truthy when ``different``.

    Rows are a recording's: row 0 is the start world, row r the world after step r - 1. A field
    that only means something with its flag (``row``, ``hash_a``, ``hash_b`` with
    ``worlds_differ``; ``entity`` ... ``entities_differing`` and ``value_ulps`` with
    ``value_differs``; ``rows_row`` with ``rows_differ``; ``world_value`` ... with
    ``world_value_differs``) holds the library's value, 0 without it. ``stage`` is None (the
    library's -1) at row 0, without stages or when no stage shows the difference, and
    ``stage_name`` then None; ``value`` is the index in the module's named values and
    ``world_value`` in its world values. ``restore_error`` is a :class:`FormatError` with
    ``restore_failed``, else None. ``keyframe_disproved`` (added in 0.5.0): keyframes restored
    but did not prove themselves, so the worlds ran from row 0.

    Besides the library's fields: ``value_name`` and ``world_value_name``, the module's names
    of ``value`` and ``world_value`` (None without their flags), and ``kind``, "recordings"."""

    different: bool
    setup_differs: bool
    steps_a: int
    steps_b: int
    rows_compared: int
    worlds_differ: bool
    row: int
    hash_a: int
    hash_b: int
    input_differs: bool
    stage: Optional[int]
    stage_name: Optional[str]
    value_differs: bool
    entity: int
    entity_id: int
    value: int
    value_a: float
    value_b: float
    entities_differing: int
    entity_counts_differ: bool
    rows_differ: bool
    rows_row: int
    value_total: int
    world_value_differs: bool
    world_value: int
    world_index: int
    world_value_a: float
    world_value_b: float
    from_keyframes: bool
    start_row: int
    steps_run: int
    value_ulps: int
    restore_failed: bool
    restore_error: Optional[FormatError]
    keyframe_disproved: bool
    value_name: Optional[str] = None
    world_value_name: Optional[str] = None
    kind: str = "recordings"

    def __bool__(self) -> bool:
        return self.different


_DIFF_FIELDS = [name for name, _ in _lib.RecordingDiffResult._fields_]


def _diff_result(c: "_lib.RecordingDiffResult", module: Module) -> RecordingDiff:
    raw = {k: getattr(c, k) for k in _DIFF_FIELDS}
    raw["stage"] = None if c.stage < 0 else c.stage
    raw["stage_name"] = (c.stage_name.decode("utf-8", "replace")
                         if c.stage >= 0 and c.stage_name else None)
    raw["restore_error"] = FormatError._from_c(c.restore_error) if c.restore_failed else None
    raw["value_name"] = module._value_name(c.value) if c.value_differs else None
    raw["world_value_name"] = (module._world_value_name(c.world_value)
                               if c.world_value_differs else None)
    return RecordingDiff(**raw)


def diff_recordings(a: "Recording", b: "Recording", module: Optional[Module] = None, *,
                    name_a: Optional[str] = None, name_b: Optional[str] = None) -> RecordingDiff:
    """Runs two recordings of one module in lockstep and says where they part (the library's
    onescope_recording_diff): both files checked against the module first. ``module`` None:
    the built-in module the first file names (:meth:`Module.for_recording`). ``name_a`` and
    ``name_b`` name the files in the library's lines (default: the recordings' names). A
    module error raises FormatError naming the file, the module and the step."""
    for label, x in (("a", a), ("b", b)):
        if not isinstance(x, Recording):
            raise TypeError(f"{label} must be an onescope.Recording, not {type(x).__name__}")
    m = Module.for_recording(a) if module is None else a._module(module)
    na = _check.text("name_a", name_a if name_a is not None else a.name).encode()
    nb = _check.text("name_b", name_b if name_b is not None else b.name).encode()
    out = _lib.RecordingDiffResult()
    err = _lib.Error()
    check(lib.onescope_recording_diff(a._handle, b._handle, m._table, None, ctypes.byref(out),
                                      na, nb, ctypes.byref(err)), err)
    return _diff_result(out, m)


def verify_file(path: PathLike, module: Module, *, max_input_bytes: int = 0) -> VerifyResult:
    """Verifies a recording file without holding it (onescope_recording_verify_file): a regular
    file is read through one buffer, standard input and pipes whole; the same verdicts and
    errors as Recording.open(path).verify(module)."""
    if not isinstance(module, Module):
        raise TypeError(f"module must be an onescope.Module, not {type(module).__name__}")
    opts = _check.parse_options(max_input_bytes)
    result = _lib.VerifyResult()
    err = _lib.Error()
    rc = lib.onescope_recording_verify_file(
        path_bytes(path), module._table, ctypes.byref(opts), ctypes.byref(result), ctypes.byref(err)
    )
    return _verify_outcome(rc, result, err)


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
        """Reads and parses a whole file (the container's rules; the blobs are checked with the
        module by :meth:`check`, :meth:`verify` ...). ``max_input_bytes``: the parser's limit
        (0: the library's, 256 MiB). FormatError with the library's line when refused."""
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
        """Parses a recording held in memory (the bytes are copied); ``name`` is the input's
        name in the library's lines."""
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
        """The id of the module the file names, e.g. "onescope.test"."""
        return lib.onescope_recording_module_id(self._handle).decode("utf-8", "replace")

    @property
    def module_version(self) -> str:
        """The version of the module the file names (a module of another version is refused)."""
        return lib.onescope_recording_module_version(self._handle).decode("utf-8", "replace")

    @property
    def flags(self) -> int:
        """The head's flags: 0x1 hash rows, 0x2 a start snapshot, 0x4 entity rows, 0x8
        keyframes (docs/recording.md)."""
        return lib.onescope_recording_flags(self._handle)

    @property
    def step_count(self) -> int:
        """The steps the file holds; its rows are 0..step_count."""
        return lib.onescope_recording_step_count(self._handle)

    @property
    def setup(self) -> bytes:
        """The module's setup blob (b"" when empty)."""
        size = ctypes.c_size_t()
        data = lib.onescope_recording_setup(self._handle, ctypes.byref(size))
        return ctypes.string_at(data, size.value) if size.value else b""

    @property
    def start_snapshot(self) -> Optional[bytes]:
        """The module's snapshot the world starts from, or None (the world from the setup)."""
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

    def entity_row(self, index: int) -> Optional["EntityRow"]:
        """Row `index`'s entity row (docs/recording.md, "Entity rows"): each entity's id, its
        digest and its group bytes as arrays, or None when the file has no entity rows."""
        if not self.flags & 0x0004:  # ONESCOPE_RECORDING_FLAG_ENTITY_ROWS
            return None
        index = _check.integer("index", index, (0, self.step_count), error=IndexError)
        row = _lib.EntityRow()
        if lib.onescope_recording_entity_row(self._handle, index, ctypes.byref(row)):
            raise IndexError(f"row {index} of {self.step_count}")
        n, g = row.count, row.group_count
        ids = np.frombuffer(ctypes.string_at(row.ids, 8 * n), dtype="<u8") if n else np.zeros(0, np.uint64)
        hashes = np.frombuffer(ctypes.string_at(row.hashes, 4 * n), dtype="<u4") if n else np.zeros(0, np.uint32)
        groups = (np.frombuffer(ctypes.string_at(row.groups, n * g), dtype=np.uint8).reshape(n, g)
                  if n * g else np.zeros((n, g), np.uint8))
        return EntityRow(ids.astype(np.uint64), hashes.astype(np.uint32), groups)

    @property
    def keyframe_every(self) -> int:
        """K, the steps between keyframes (docs/recording.md, "Keyframes"); 0 when the file has
        none. Keyframe i stands at row (i + 1) x K."""
        return int(lib.onescope_recording_keyframe_every(self._handle))

    @property
    def keyframe_count(self) -> int:
        """How many keyframes the file holds (0 without): one at every row K, 2K, ... up to the
        last row."""
        return int(lib.onescope_recording_keyframe_count(self._handle))

    @property
    def value_names(self) -> List[str]:
        """The names of a keyframe table's values, as the file holds them ([] without
        keyframes): readable with no module loaded."""
        names = []
        buf = ctypes.create_string_buffer(65)
        v = 0
        while self.keyframe_every and lib.onescope_recording_value_name(self._handle, v, buf) == 0:
            names.append(buf.value.decode("ascii"))
            v += 1
        return names

    def keyframe(self, index: int) -> Keyframe:
        """Keyframe `index` (0..keyframe_count-1; IndexError outside) as the file holds it, read
        without a module: its row ((index + 1) x keyframe_every), the module's snapshot there,
        and its value table (every entity's id and named values, columns named by
        :attr:`value_names`). The tools trust a keyframe only once it proves itself (the world
        restored from its snapshot reproduces the recorded hash row, entity row and this
        table): :meth:`explain` says how it judged one (``Explanation.keyframe_use``); this
        call only reads the bytes."""
        index = _check.integer("index", index, (0, self.keyframe_count - 1), error=IndexError)
        k = _lib.Keyframe()
        if lib.onescope_recording_keyframe(self._handle, index, ctypes.byref(k)):
            raise IndexError(f"keyframe {index} of {self.keyframe_count}")
        n, v = k.entity_count, k.value_count
        snapshot = ctypes.string_at(k.snapshot, k.snapshot_size) if k.snapshot_size else b""
        ids = np.frombuffer(ctypes.string_at(k.ids, 8 * n), dtype="<u8") if n else np.zeros(0, "<u8")
        values = (np.frombuffer(ctypes.string_at(k.values, 8 * n * v), dtype="<f8").reshape(n, v)
                  if n * v else np.zeros((n, v), "<f8"))
        return Keyframe(k.row, snapshot, ids.astype(np.uint64), values.astype(np.float64))

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
        """The file's bytes again, from the library's writer (equal to the bytes read)."""
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
        """Runs the recording through the module and compares every hash row, and every
        keyframe table with the world at its row. The result's ``verdict``
        (:class:`onescope.Verdict`) says what was decided: PASS (or NO_STEPS) when ok,
        HASH_MISMATCH or TABLE_MISMATCH (the hash rows matched but a keyframe table did not:
        the module's hash misses a value) when not. Any other failure raises FormatError with
        the library's line and its ``verdict``: INVALID (another module, a blob the module's
        checks refuse), NO_HASH_ROWS, or MODULE_ERROR (the module failed making a row, whatever
        its error code; ``error.result.first_row`` is that row)."""
        m = self._module(module)
        result = _lib.VerifyResult()
        err = _lib.Error()
        rc = lib.onescope_recording_verify(
            self._handle, m._table, None, ctypes.byref(result), self.name.encode(),
            ctypes.byref(err),
        )
        return _verify_outcome(rc, result, err)

    def explain(self, module: Module, row: int, max_listed: int = 16) -> "Explanation":
        """Runs the file to `row` and compares every entity's digest with the recorded entity
        row there (the library's onescope_recording_explain): the entities that differ, by id,
        with the group indices whose bytes differ; with keyframes, the values of a keyframe
        table against the world's (the first on the way that differs, else the first at or
        after row). The run starts at the keyframe before row only when that keyframe proves
        itself (the world restored from it reproduces the file's hash row, entity row and
        table there) and the run from it does not reproduce the recording at row; else at row
        0. ``Explanation.keyframe_use`` says which, and what disproved the keyframe. At most
        ``max_listed`` entities and values are listed. FormatError when the file has neither
        entity rows nor keyframes."""
        m = self._module(module)
        row = _check.integer("row", row, (0, self.step_count), error=IndexError)
        max_listed = _check.integer("max_listed", max_listed, (1, 2**32 - 1))
        out = ctypes.POINTER(_lib.Explanation)()
        err = _lib.Error()
        check(
            lib.onescope_recording_explain(
                self._handle, m._table, row, max_listed, None, ctypes.byref(out),
                self.name.encode(), ctypes.byref(err),
            ),
            err,
        )
        try:
            x = out.contents
            listed = [_entity_difference(x.entities[i]) for i in range(x.listed)]
            names = self.value_names
            values = [_value_difference(x.values[i], names) for i in range(x.values_listed)]
            use = KeyframeUse(x.keyframe_use)
            hashes = x.keyframe_hashes_differ
            return Explanation(
                x.row, x.entities_recorded, x.entities_found, x.differing, listed, x.start_row,
                x.restore_failed, x.steps_run, x.table_row if x.has_table else None,
                x.values_compared, x.values_differing, values,
                FormatError._from_c(x.restore_error) if x.restore_failed else None,
                keyframe_use=use,
                keyframe_row=None if use == KeyframeUse.NONE else x.keyframe_row,
                keyframe_hashes_differ=hashes,
                keyframe_hash_recorded=x.keyframe_hash_recorded if hashes else None,
                keyframe_hash_restored=x.keyframe_hash_restored if hashes else None,
                keyframe_entity=_entity_difference(x.keyframe_entity)
                if x.keyframe_has_entity else None,
                keyframe_value=_value_difference(x.keyframe_value, names)
                if x.keyframe_has_value else None,
                has_hash=x.has_hash,
                hash_recorded=x.hash_recorded if x.has_hash else None,
                hash_found=x.hash_found if x.has_hash else None,
            )
        finally:
            lib.onescope_recording_explanation_free(out)

    def diff(self, other: "Recording", module: Optional[Module] = None) -> RecordingDiff:
        """Where this recording and `other` part, run through `module` (None: the built-in
        module the file names): :func:`diff_recordings`, this file as a."""
        return diff_recordings(self, other, module)

    def __repr__(self) -> str:
        return (
            f"<onescope.Recording {self.name!r}: module {self.module_id} {self.module_version}, "
            f"{self.step_count} steps>"
        )
