"""The stream-ordering analysis: an abstract interpreter over the project's lowered code.

It runs every entry point of the project (functions nothing in the project calls, and
module code), following calls into project functions with their arguments bound, object
attributes assigned anywhere in a class, queue hand-offs and thread targets. Along every
path it tracks, per stream, since when the stream is ordered behind the producer (the
current stream of the thread that made the request), the events recorded and where, the
producer's writes and host-blocking syncs. At each copy launch it records the stream, the
source and destination memory, the source access order and whether the path is ordered.

Conservative choices, documented in the rule pages: a ``wait_stream`` on a stream the
analysis cannot resolve counts as a barrier behind the producer; an event whose record is
not visible on the path counts as recorded before the path began; a copy whose direction
the code does not show is treated as reading GPU memory into host memory.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from kvguard.lint import ir
from kvguard.lint.api import (
    ADDRESS_WRAPPERS,
    ALLOCATORS,
    ARRAY_METHOD_COPIES,
    COPY_APIS,
    DATA_CONSTRUCTORS,
    DEVICE_ALLOCATORS,
    DEVICE_MODULES,
    DEVICE_NAMES,
    DEVICE_SYNCS,
    EVENT_CREATORS,
    EVENT_RECORDS,
    EVENT_SYNCS,
    HANDLE_WRAPPERS,
    HOST_COMPUTE_METHODS,
    HOST_READ_ARGUMENT_METHODS,
    HOST_READ_FUNCTIONS,
    HOST_READ_METHODS,
    KIND_MEMORY,
    KIND_SPELLINGS,
    LIKE_ALLOCATORS,
    NEW_ALLOCATORS,
    NUMPY_SCALARS,
    ORDER_KEYWORDS,
    ORDER_SPELLINGS,
    ORDER_STRINGS,
    PINNED_ALLOCATORS,
    QUEUES,
    RAW_COPIES,
    SAME_MEMORY_METHODS,
    SEED_NAMES,
    STREAM_CONTEXTS,
    STREAM_CREATORS,
    STREAM_HANDLES,
    STREAM_SYNCS,
    STREAM_WAITS,
    WEAK_NAMES,
)
from kvguard.lint.config import AnalysisSettings
from kvguard.lint.facts import ORDER_ANY, Memory, SourceOrder
from kvguard.lint.findings import FlowStep, Span
from kvguard.lint.values import (
    UNKNOWN,
    ClassV,
    ConstV,
    ContextV,
    CopyApiV,
    EventV,
    ExternalV,
    FuncV,
    GeneratorContextV,
    LambdaV,
    ModuleV,
    ObjectV,
    QueueGetV,
    QueueV,
    RecordV,
    SeqV,
    StreamV,
    TensorV,
    UnionV,
    Unknown,
    Value,
    ZipV,
    join,
    memory_of,
    options,
    taint,
    view_of,
)

MAIN_THREAD = "the requesting thread"
# Calls followed from one entry point; past it, calls are left opaque. Offload paths take a
# few dozen; the budget keeps one sprawling entry point from taking the run's time.
_CALLS_PER_ROOT = 600
_NEW_STREAM = "a stream created here"
# Written by code the analysis does not see, which may write any buffer (a generator's caller).
_ANY_BUFFER = "<any buffer>"
_MAX_DEPTH = 12
_RUNS_PER_THREAD_FUNCTION = 8
# A method called on an unplaced object runs in each project class that defines it, up to
# this many (beyond, the name is too common to tell which).
_MAX_OVERRIDES = 4
# ``range(n)`` with a constant n up to this is read as its elements (two streams in turn).
_SPELT_RANGE = 8
_BEFORE_PATH = -1
# Builtins whose results the analysis reads (a dict display is lowered to a ``dict`` call).
_BUILTINS = frozenset({"int", "getattr", "zip", "list", "tuple", "len", "dict"})


@dataclass(frozen=True)
class CopyRun:
    """One copy launch as reached along one path."""

    path: str
    span: Span
    lines: tuple[int, int]
    form: str
    stream: StreamV | None  # None: the caller's current stream (the producer's own)
    source_memory: Memory
    destination_memory: Memory
    order: SourceOrder | None
    ordered: bool
    gap: tuple[FlowStep, ...]
    stale_write_line: int | None
    host_synced: bool
    # Where the producer used a load's destination after the barrier (the barrier predates it).
    destination_used_line: int | None
    flow: tuple[FlowStep, ...]
    thread: str
    resolved_stream: bool
    # Where a barrier can go mechanically: before the ``with`` that entered the stream, in the
    # copy's own function on the requesting thread (path, with statement, stream spelling,
    # the device module the block names (``torch.cuda``, ``torch.xpu``, ``get_accelerator()``)
    # and the module that spelling needs imported, if any).
    barrier_site: tuple[str, Span, str, tuple[str, str]] | None = None
    # The object's earlier calls left its stream ordered behind the producer after their last
    # copy on it: that orders this copy after the producer's work up to then (what a load
    # overwriting a buffer those calls' kernels read needs), not after what came since.
    ordered_by_earlier_call: bool = False
    # The destination was allocated on this path, before the copy: no kernel has read it.
    fresh_destination: bool = False
    # The source was allocated on this path and no kernel has written it since: there is no
    # producer to order behind (a benchmark copying a fresh buffer back and forth).
    unwritten_source: bool = False
    # The copy's form fixes the destination (``x.cpu()``): it says nothing of the direction.
    implied_destination: bool = False
    blocking: bool = False
    # The destination is what unfollowed callers pass (see ``Unknown.from_caller``).
    destination_from_caller: bool = False

    @property
    def on_side_stream(self) -> bool:
        return self.stream is not None and self.stream.current_of != MAIN_THREAD

    @property
    def on_thread_default_stream(self) -> bool:
        """Issued on another thread's current stream, no stream of its own entered. Unless one
        of the two threads set a stream, that is the producer's own: PyTorch's default stream is
        one per device, shared by every thread."""
        return (
            self.stream is not None
            and self.stream.key.startswith("current@")
            and self.stream.current_of != MAIN_THREAD
        )

    @property
    def may_read_device(self) -> bool:
        return self.source_memory is not Memory.HOST

    @property
    def may_write_host(self) -> bool:
        return self.destination_memory is not Memory.DEVICE

    @property
    def direction(self) -> str:
        """The GPU-to-host direction as far as the code shows it."""
        source, destination = self.source_memory, self.destination_memory
        if source is Memory.DEVICE and destination is Memory.HOST:
            return "GPU to host"
        if destination is Memory.HOST:
            return "into host memory from a source the code does not place"
        if source is Memory.DEVICE:
            return "from GPU memory into a destination the code does not place"
        return "direction not shown: the code places neither source nor destination"

    @property
    def direction_shown(self) -> bool:
        """Whether the code places at least one side of the copy. A destination counts only
        when the code chose it and copies into it asynchronously: ``x.cpu()``'s host result is
        the form's, and a blocking copy into a pinned buffer is as often host staging."""
        chosen = not self.implied_destination and not self.blocking
        destination_shown = chosen and self.destination_memory is not Memory.UNKNOWN
        return self.source_memory is not Memory.UNKNOWN or destination_shown


@dataclass(frozen=True)
class PendingCopy:
    """An asynchronous copy into host memory whose completion the host has not waited for."""

    path: str
    line: int
    column: int
    form: str
    destination: str  # how the code spells the destination
    stream_key: str
    time: int
    # A blocking read the code cannot place came since (a ``.tolist()`` of a tensor that may be
    # on the GPU): the host may have waited for this copy. Says where.
    maybe_waited: str = ""
    # Started by an earlier call of the object that holds the buffer (another entry point):
    # code outside the project may wait between the two calls.
    earlier_call: bool = False

    @property
    def established(self) -> bool:
        """Whether the code shows that nothing waited for the copy before a read."""
        return not self.maybe_waited and not self.earlier_call


@dataclass(frozen=True)
class HostRead:
    """The host reading a buffer while a copy into it may still be running."""

    path: str
    span: Span
    lines: tuple[int, int]
    how: str
    copy: PendingCopy
    flow: tuple[FlowStep, ...]
    thread: str
    read: str = ""  # how the code names what it reads, where it names it plainly


@dataclass
class Analysis:
    """What one run of the interpreter found: copy launches and early host reads."""

    runs: list[CopyRun] = field(default_factory=list)
    host_reads: list[HostRead] = field(default_factory=list)
    # Entry points the analysis failed on (an internal error): their paths are not checked.
    failed: list[str] = field(default_factory=list)


@dataclass
class _State:
    barriers: dict[str, int] = field(default_factory=dict)
    gaps: dict[str, tuple[FlowStep, ...]] = field(default_factory=dict)
    records: dict[str, tuple[StreamV | None, int]] = field(default_factory=dict)
    # Writes of each tensor: (when, line, the stream they were issued on).
    writes: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    synced: int | None = None
    # a taught barrier helper ordered every stream (not a host sync)
    ordered_all: int | None = None
    streams: tuple[StreamV, ...] = ()
    returned: bool = False  # the path has left the function
    # Asynchronous copies into host buffers not yet waited for, by buffer identity.
    pending: dict[str, PendingCopy] = field(default_factory=dict)
    # When a copy was last issued on each stream, on this path.
    issued: dict[str, int] = field(default_factory=dict)
    # Streams of the current object that its earlier calls left ordered behind the producer.
    carried: frozenset[str] = frozenset()
    # When the requesting thread last called code outside the project (a kernel launch, say):
    # producer work a barrier must follow to order a stream behind it.
    launched: int = _BEFORE_PATH
    # Events made on this path and not recorded yet: waiting on one orders nothing.
    unrecorded: frozenset[str] = frozenset()

    def ordered_since(self, stream: str) -> int | None:
        times = [t for t in (self.barriers.get(stream), self.all_ordered_since()) if t is not None]
        return max(times) if times else None

    def all_ordered_since(self) -> int | None:
        """Since when every stream is ordered behind the producer (a host sync, a taught
        barrier helper)."""
        times = [t for t in (self.synced, self.ordered_all) if t is not None]
        return max(times) if times else None

    def copy(self) -> _State:
        return _State(
            dict(self.barriers),
            dict(self.gaps),
            dict(self.records),
            dict(self.writes),
            self.synced,
            self.ordered_all,
            self.streams,
            self.returned,
            dict(self.pending),
            dict(self.issued),
            self.carried,
            self.launched,
            self.unrecorded,
        )

    def completed(self, stream_key: str | None, before: int | None = None) -> None:
        """The host waited for a stream (every stream when None), up to ``before`` if given."""
        self.pending = {
            key: copy
            for key, copy in self.pending.items()
            if not (
                (stream_key is None or copy.stream_key == stream_key)
                and (before is None or copy.time < before)
            )
        }


@dataclass
class _Path:
    """One way through a branch: where it leaves the state and the names, and its step."""

    state: _State
    env: dict[str, Value]
    step: FlowStep | None


# Branches on which stream to use, nested or in sequence, that each run the rest of their
# block on their own: past this, paths merge.
_MAX_SPLITS = 3


def _merge_or_end(states: Sequence[_State], otherwise: _State) -> _State:
    """The paths merged, without steps; with none, ``otherwise`` (a path that has ended)."""
    if not states:
        ended = otherwise.copy()
        ended.returned = True
        return ended
    return _merge(states, [None] * len(states))


def _merge(states: Sequence[_State], steps: Sequence[FlowStep | None]) -> _State:
    """Where paths join. Paths that returned are left out: they continue at the caller."""
    live = [(s, step) for s, step in zip(states, steps, strict=True) if not s.returned]
    if not live:
        done = states[0].copy()
        done.returned = True
        return done
    states, steps = [s for s, _ in live], [step for _, step in live]
    merged = _State(streams=states[0].streams)
    keys = set().union(*(s.barriers for s in states)) | set().union(*(s.gaps for s in states))
    for key in keys:
        times = [s.ordered_since(key) for s in states]
        present = [t for t in times if t is not None]
        if len(present) == len(states):
            merged.barriers[key] = min(present)
            continue
        for state, time, step in zip(states, times, steps, strict=True):
            if time is None and (present or key in state.gaps):
                merged.gaps[key] = ((step,) if step is not None else ()) + state.gaps.get(key, ())
                break
    # An event some paths recorded: its latest record, which on its path follows that path's
    # writes. Writes are merged by their latest too, so pairing the earliest record with the
    # latest write would find a stale write no single path has (a loop's turns record and
    # write the same event and buffer).
    for event in set().union(*(s.records for s in states)):
        merged.records[event] = max(
            (s.records[event] for s in states if event in s.records), key=lambda r: r[1]
        )
    for state in states:
        # A write its own path ordered every stream behind (a host sync after it) is done
        # for every later copy: merged with another path's older barrier it would look stale.
        ordered = state.all_ordered_since()
        for tensor, write in state.writes.items():
            if ordered is not None and write[0] < ordered:
                continue
            if tensor not in merged.writes or merged.writes[tensor][0] < write[0]:
                merged.writes[tensor] = write
    for state in states:
        for key, copy in state.pending.items():
            # Still running on some path: reading is unsafe; surely so where the code shows
            # that nothing waited for it on that path.
            known = merged.pending.get(key)
            if known is None or (not known.established and copy.established):
                merged.pending[key] = copy
    for state in states:
        for key, time in state.issued.items():
            merged.issued[key] = max(time, merged.issued.get(key, time))
    merged.carried = frozenset.intersection(*(s.carried for s in states))
    merged.launched = max(s.launched for s in states)
    # Unrecorded only where no path recorded it: a loop that records an event per element
    # (``for x in xs: ...; done.record()``) and the path that skips an empty loop join here,
    # and waiting on the event after the loop orders behind the last record.
    merged.unrecorded = frozenset.intersection(*(s.unrecorded for s in states))
    merged.synced = _earliest([s.synced for s in states])
    merged.ordered_all = _earliest([s.ordered_all for s in states])
    return merged


def _earliest(times: list[int | None]) -> int | None:
    """When every path had it: the earliest time, or None if some path never did."""
    return None if any(t is None for t in times) else min(t for t in times if t is not None)


@dataclass(frozen=True)
class ModuleEntry:
    name: str
    path: str
    code: ir.ModuleCode


@dataclass
class _Frame:
    module: ModuleEntry
    env: dict[str, Value]
    thread: str
    flow: tuple[FlowStep, ...]
    depth: int
    stack: tuple[str, ...]
    returns: list[Value] = field(default_factory=list)
    exits: list[_State] = field(default_factory=list)  # states of paths that returned early
    # Runs a ``with`` block where a context-manager generator yields (the state there, and
    # what it yields, bound to the ``as`` name).
    on_yield: Callable[[_State, Value, Span], _State] | None = None
    global_names: tuple[str, ...] = ()
    # Parameters bound to a caller's buffer: the caller's identity for that buffer.
    aliases: dict[str, str] = field(default_factory=dict)
    # Per enclosing loop, innermost last: the states of paths that broke out of it, and of
    # paths that continued to its next turn.
    loops: list[tuple[list[_State], list[_State]]] = field(default_factory=list)


@dataclass
class _Put:
    payload: Value
    state: _State
    flow: tuple[FlowStep, ...]


@dataclass
class _ThreadStart:
    target: Value
    arguments: tuple[Value, ...]
    state: _State
    flow: tuple[FlowStep, ...]
    label: str
    # Started by a function run on its own (its callers unresolved), with unknown arguments.
    fallback: bool = False
    # An asyncio task: it runs later, on the thread that made it (same current stream).
    same_thread: bool = False


def module_name_for(path: str, package_dirs: Callable[[str], bool]) -> str:
    """Dotted module name of a file, from the ``__init__.py`` files above it."""
    pure = PurePosixPath(path)
    parts = [] if pure.stem == "__init__" else [pure.stem]
    directory = pure.parent
    while package_dirs(directory.as_posix()) and directory.name:
        parts.insert(0, directory.name)
        directory = directory.parent
    return ".".join(parts) or pure.stem


class Interpreter:
    def __init__(self, modules: Iterable[ModuleEntry], taught: AnalysisSettings | None = None) -> None:
        self._taught = taught or AnalysisSettings()
        self._modules = {m.name: m for m in modules}
        self._functions: dict[tuple[str, str], ir.Function] = {}
        self._classes: dict[tuple[str, str], ir.Class] = {}
        for module in self._modules.values():
            for function in module.code.functions:
                self._functions[(module.name, function.qualname)] = function
            for cls in module.code.classes:
                self._classes[(module.name, cls.qualname)] = cls
        # Which methods assign each field (module, class, field), read off their code: a field
        # one of them assigns is unknown where that method never ran.
        self._field_writers: dict[tuple[str, str, str], set[tuple[str, str]]] = {}
        for (module_name, qualname), function in self._functions.items():
            if function.class_name and function.params:
                holder = function.params[0].name
                for field_name in _fields_assigned(function.body, holder):
                    key = (module_name, function.class_name, field_name)
                    self._field_writers.setdefault(key, set()).add((module_name, qualname))
        # The classes that give each field name a value: an unplaced object's field is read
        # from them when few do (``ctx.lengths`` where one class of the project has ``lengths``).
        self._field_owners: dict[str, set[tuple[str, str]]] = {}
        for module_name, class_name, field_name in self._field_writers:
            self._field_owners.setdefault(field_name, set()).add((module_name, class_name))
        # A class that answers the name with a method or property owns it too: its value is
        # not one of the assigned fields (``obj.tensor`` of a class whose ``tensor`` is a property).
        for (module_name, _), function in self._functions.items():
            if function.class_name and function.name in self._field_owners:
                self._field_owners[function.name].add((module_name, function.class_name))
        self._uses: dict[int, tuple[set[str], set[str]]] = {}
        # Functions defined inside another function (closures), by the function they are in.
        self._nested_in: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for module_name, qualname in sorted(self._functions):
            parent = (module_name, qualname.rpartition(".")[0])
            if parent in self._functions:
                self._nested_in.setdefault(parent, []).append((module_name, qualname))
        self._nested = {key for inner in self._nested_in.values() for key in inner}
        # Names of functions passed as values (callbacks, executor tasks, thread targets):
        # they may run on a thread the analysis does not see.
        self._passed: set[str] = set()
        self._names_called: set[str] = set()  # every name some project function calls
        self._splits = 0  # branches now running the rest of their block on their own
        self._relevant: set[tuple[str, str]] = set()
        self._reach: set[tuple[str, str]] = set()
        self._reach_classes: set[tuple[str, str]] = set()
        self._relevance()
        self._heap: dict[tuple[str, str, str], list[Value]] = {}
        self._instances: list[ObjectV] = []
        self._constant_values: dict[tuple[str, str], Value] = {}
        self._bases: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._puts: dict[str, list[_Put]] = {}
        self._threads: list[_ThreadStart] = []
        # Buffers allocated by the entry point now running (a destination no kernel has read).
        self._fresh: set[str] = set()
        self._unwritten: set[str] = set()  # fresh buffers no kernel filled (``empty``)
        self._methods_by_name: dict[str, list[tuple[str, str, bool]]] | None = None
        self._functions_by_name: dict[str, list[tuple[str, str]]] | None = None
        self._callees: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self._closure_names_of: dict[tuple[str, str], set[str]] = {}
        # Names of the project's ``async def`` functions: only a call by one of them can be
        # a coroutine call that runs nothing unless awaited.
        self._async_names = {function.name for function in self._functions.values() if function.is_async}
        # Fields each instance under construction has been given so far in this construction.
        self._constructing: dict[ObjectV, dict[str, Value]] = {}
        # Streams copies were issued on: the rest of the streams the project makes compute.
        self._copy_streams: set[str] = set()
        self._entered: set[tuple[str, str]] = set()
        # Streams a method call of an object leaves ordered behind the producer after its last
        # copy on them, by the object's class; and streams some call leaves with a copy after
        # its last barrier. A stream only ever left ordered is ordered when the next call of
        # the object starts (the barrier the previous call took at its end).
        self._left_ordered: dict[tuple[str, str], set[str]] = {}
        # The streams each class keeps in its fields.
        self._field_streams: dict[tuple[str, str], set[str]] = {}
        self._left_unordered: set[str] = set()
        # Asynchronous copies into host buffers that a method call of an object, run as an
        # entry point, left unfinished, by the object's class.
        self._left_pending: dict[tuple[str, str], dict[str, PendingCopy]] = {}
        # The streams each event is recorded on, wherever (any pass, any path) the analysis saw
        # a record: waiting on one recorded nowhere is no barrier.
        self._recorded_on: dict[str, set[str]] = {}
        # Functions entered this pass through a resolved call, a thread start or a ``with``.
        self._called: set[tuple[str, str]] = set()
        # Entry points whose collecting run reached a copy (or started with one an earlier call
        # left unfinished) or handed work on, and how many of each the analysis has seen.
        self._effective: set[tuple[str, str]] = set()
        self._copies_reached = 0
        self._handoffs_reached = 0  # puts on queues
        self._inherited_copies = 0  # copies entry points started with, left by earlier calls
        # Fields and globals (heap keys) read by the entry point now running; for each entry
        # point run while collecting, when it started (its number), what it read and how many
        # instances it ran for; and when each heap key last changed (the entry point's number).
        self._heap_reads: set[tuple[str, str, str]] = set()
        self._root_runs = 0
        self._collected: dict[tuple[str, str], tuple[int, set[tuple[str, str, str]], int]] = {}
        self._heap_changed: dict[tuple[str, str, str], int] = {}
        self._clock = 0
        self._budget = _CALLS_PER_ROOT
        self._reporting = False
        self._fallback = False
        self.runs: list[CopyRun] = []
        self.host_reads: list[HostRead] = []
        self.failed: list[str] = []

    # ------------------------------------------------------------------ driver
    def run(self) -> Analysis:
        roots = self._roots()
        writers = self._methods_filling_fields(roots)
        unreached: list[tuple[str, str]] = []
        for reporting in (False, True):
            self._reporting = reporting
            self._puts, self._threads = {}, []
            self._called = set()
            for root in [*writers, *roots]:
                self._run_root_and_instances(root)
            if not reporting:
                # Called only from places the analysis cannot resolve (another package, a
                # registry, a callback): run on their own, where an unresolved stream is not
                # reported, since the real caller may pass a resolved one.
                # A thread's target, and what it calls, are not among them: they run as that
                # thread, after the roots.
                unreached = sorted(self._relevant - self._entered - self._thread_code() - self._nested)
            self._fallback = True
            started, known = self._thread_code(), len(self._threads)
            for key in unreached:
                if len(self._threads) != known:  # a fallback root started a thread
                    started, known = self._thread_code(), len(self._threads)
                # A call resolved after all (the first pass learnt the fields it goes through)
                # runs it with its caller's arguments: on its own it would run with none, its
                # parameters' defaults standing for what the caller passes.
                if key not in self._called and key not in started:
                    self._run_root_and_instances(key, instances=False)
            self._fallback = False
        self._run_threads()
        return Analysis(self.runs, self.host_reads, self.failed)

    def _run_root_and_instances(self, key: tuple[str, str], instances: bool = True) -> None:
        """Run an entry point (and, for a method, once per instance the project constructs,
        with its own fields). The reporting pass runs only those whose collecting run reached
        a copy (its own or one an earlier call left unfinished) or handed work to another
        thread, and those that read a field or global that was given a value opening new
        paths (or an instance was made) after that run: the rest cannot report, and what
        they store in fields the collecting pass stored."""
        runs = self._instances_for(key) if instances else []
        if self._reporting and key not in self._effective and key in self._collected:
            if self._fallback:
                return  # run alone, with no arguments: what it reads changes little
            started, read, instance_count = self._collected[key]
            if len(runs) <= instance_count and all(self._heap_changed.get(k, -1) <= started for k in read):
                return
        self._heap_reads = set()
        started = self._root_runs
        self._root_runs += 1
        before = self._reached()
        self._run_root(key)
        for instance in runs:
            self._run_root(key, instance)
        if self._reached() != before:
            self._effective.add(key)
        if not self._reporting:
            self._collected[key] = (started, self._heap_reads, len(runs))

    def _reached(self) -> tuple[int, int, int, int]:
        """How many copies, inherited copies, puts and thread starts the analysis has seen."""
        return (self._copies_reached, self._inherited_copies, self._handoffs_reached, len(self._threads))

    def _thread_code(self) -> set[tuple[str, str]]:
        """The functions threads started so far run."""
        return self._called_from(
            [(s.target.module, s.target.qualname) for s in self._threads if isinstance(s.target, FuncV)]
        )

    def _called_from(self, functions: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """These functions and every project function they call by name, transitively."""
        found = set(functions)
        pending = list(functions)
        while pending:
            for key in self._direct_callees(pending.pop()):
                if key not in found:
                    found.add(key)
                    pending.append(key)
        return found

    def _direct_callees(self, caller_key: tuple[str, str]) -> list[tuple[str, str]]:
        """The project functions a function calls by plain name or through ``self`` (read once)."""
        known = self._callees.get(caller_key)
        if known is not None:
            return known
        if self._functions_by_name is None:
            self._functions_by_name = {}
            for key, function in self._functions.items():
                self._functions_by_name.setdefault(function.name, []).append(key)
        by_name = self._functions_by_name
        caller = self._functions.get(caller_key)
        callees: list[tuple[str, str]] = []
        if caller is not None:
            plain, on_self = _direct_calls(caller.body)
            callees = [
                key for name in plain for key in by_name.get(name, ()) if not self._functions[key].class_name
            ]
            owner = self._self_class(caller_key)
            if owner:
                # ``self.m()``: the method its own class (or a base) defines, not every ``m``.
                callees += [
                    method
                    for name in on_self
                    if (method := self._method(caller_key[0], owner, name)) is not None
                ]
            # Functions defined inside it run as part of it (called there, or handed on as
            # callbacks).
            callees += self._nested_in.get(caller_key, [])
        self._callees[caller_key] = callees
        return callees

    def _self_class(self, key: tuple[str, str]) -> str:
        """The class whose ``self`` a function sees: its own, or a nested function's enclosing
        method's."""
        while key in self._nested:
            key = (key[0], key[1].rpartition(".")[0])
        return self._functions[key].class_name

    def _run_threads(self) -> None:
        """Threads consume what the roots put on queues; threads may start threads. Each thread
        function runs for at most a few of its starts (the first ones, in the order the roots
        made them), so a large project's many threads are all analysed and a thread that
        starts itself ends."""
        runs: dict[tuple[str, str] | None, int] = {}
        done = 0
        while done < len(self._threads):
            start = self._threads[done]
            done += 1
            thread_function = (
                (start.target.module, start.target.qualname) if isinstance(start.target, FuncV) else None
            )
            if runs.get(thread_function, 0) >= _RUNS_PER_THREAD_FUNCTION:
                continue
            runs[thread_function] = runs.get(thread_function, 0) + 1
            self._fallback = start.fallback
            with contextlib.suppress(RecursionError):  # too deep to follow: left unanalysed
                try:
                    self._run_thread(start)
                except Exception as error:  # a bug here must not cost the rest of the run
                    self.failed.append(f"thread {start.label}: {type(error).__name__}: {error}")
            self._fallback = False

    def _roots(self) -> list[tuple[str, str]]:
        """Functions nothing in the project calls, and module code, that can reach a stream
        ordering construct; everything else is reached from them or cannot matter."""
        called = self._names_called
        roots = [
            ("<module>", name)
            for name, module in sorted(self._modules.items())
            if self._uses[id(module.code.body)][1] & SEED_NAMES
        ]
        # A method runs on an instance its class's constructor made: where the project never
        # constructs the class, its constructor runs first, on the generic instance, so the
        # methods see the fields it sets (a pinned buffer, a stream) rather than nothing.
        holders = {
            (module, function.class_name)
            for (module, _), function in self._functions.items()
            if function.class_name and (module, function.qualname) in self._relevant
        }
        constructors = {
            (module, f"{cls}.__init__")
            for module, cls in holders
            if cls.rsplit(".", 1)[-1] not in called and (module, f"{cls}.__init__") in self._functions
        }
        roots += sorted(constructors)
        # Likewise a module's lazy initialiser (``global copy_stream; copy_stream = Stream()``)
        # runs first, so that readers of the global see what it makes, not its ``None``.
        initialisers = {
            key
            for key, function in self._functions.items()
            if function.global_names and key in self._relevant and key not in constructors
        }
        roots += sorted(initialisers)
        plain = sorted(
            key
            for key, function in self._functions.items()
            if function.name not in called
            and key in self._relevant
            and key not in constructors
            and key not in initialisers
            # A function defined in another runs with the names that one binds, as it runs.
            and key not in self._nested
            # A constructor runs where its class is constructed.
            and not (function.name == "__init__" and function.class_name.rsplit(".", 1)[-1] in called)
        )
        # Producers before consumers: a coroutine that awaits ``queue.get()`` runs its loop
        # body once per payload put so far, so the functions that put run first.
        puts = {"put", "put_nowait"}
        roots += sorted(plain, key=lambda key: not (self._uses[id(self._functions[key].body)][0] & puts))
        return roots

    def _methods_filling_fields(self, roots: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """Other methods of the classes the roots belong to, called from outside the project,
        that set or fill a field of their object (``self.tag_to_state[tag] = tensor``): what
        they store is what the roots may read there, so they run while fields are collected.
        Methods the project calls run where they are called, with their caller's arguments."""
        classes = {
            (module, function.class_name)
            for module, qualname in roots
            if (function := self._functions.get((module, qualname))) is not None and function.class_name
        }
        return sorted(
            key
            for key, function in self._functions.items()
            if (key[0], function.class_name) in classes
            and key not in self._relevant
            and key not in self._nested
            and function.name not in self._names_called
            and function.params
            and _fields_assigned(function.body, function.params[0].name, items=True)
        )

    def _relevance(self) -> None:
        """Which functions can matter: those naming a stream construct, a raw copy, a thread
        or a source order (relevant), and those naming a tensor copy or allocation (reach);
        each closed over callers, by called name."""
        callers: dict[str, set[tuple[str, str]]] = {}
        seeds, weak = [], []
        for key, function in self._functions.items():
            called, mentioned, passed = _names_used(function.body)
            self._uses[id(function.body)] = (called, mentioned)
            self._names_called |= called
            self._passed |= passed
            # Handing a function on (``partial(self.job)``, ``pool.submit(self.job)``) is how
            # it comes to run: the hand-off matters as a call would.
            for name in called | passed:
                callers.setdefault(name, set()).add(key)
            if mentioned & SEED_NAMES or any(
                _spelling(d).endswith("contextmanager") for d in function.decorators
            ):
                seeds.append(key)
            elif mentioned & WEAK_NAMES or mentioned & _HOST_READS or _TENSOR_WRITE in mentioned:
                weak.append(key)  # copies, allocations, writes and host reads, on a seed's path
        for module in self._modules.values():
            called, mentioned, passed = _names_used(module.code.body)
            self._uses[id(module.code.body)] = (called, mentioned)
            self._passed |= passed
        self._relevant = self._closure(seeds, callers)
        self._reach = self._closure(seeds + weak, callers)
        self._reach_classes = {
            (module, function.class_name)
            for module, qualname in self._reach
            if (function := self._functions[(module, qualname)]).class_name
        }

    def _closure(
        self, seeds: list[tuple[str, str]], callers: dict[str, set[tuple[str, str]]]
    ) -> set[tuple[str, str]]:
        """Seeds and everything that calls them by name; constructing a class whose methods
        are in the set counts as calling them (its instances carry their fields)."""
        found = set(seeds)
        pending = list(seeds)
        subclasses: dict[str, set[str]] = {}
        for info in self._classes.values():
            for base in info.bases:
                subclasses.setdefault(_spelling(base).rsplit(".", 1)[-1], set()).add(info.name)
        while pending:
            function = self._functions[pending.pop()]
            names = [function.name]
            if function.class_name:
                # Constructing the class, or any subclass, makes an instance with this method.
                classes = [function.class_name.rsplit(".", 1)[-1]]
                for cls in classes:
                    classes.extend(sorted(subclasses.get(cls, set()) - set(classes)))
                names.extend(classes)
            for name in names:
                for caller in callers.get(name, ()):
                    if caller not in found:
                        found.add(caller)
                        pending.append(caller)
        return found

    def _instances_for(self, key: tuple[str, str]) -> list[ObjectV]:
        function = self._functions.get(key)
        # A constructor already ran for each instance, with its real arguments.
        if function is None or not function.class_name or function.name == "__init__":
            return []
        return [
            instance
            for instance in self._instances
            if self._method(instance.module, instance.qualname, function.name) == key
        ]

    def _run_root(self, key: tuple[str, str], instance: ObjectV | None = None) -> None:
        # Nesting deeper than the interpreter can follow leaves this entry point unanalysed.
        with contextlib.suppress(RecursionError):
            try:
                self._run_root_unguarded(key, instance)
            except Exception as error:  # a bug here must not cost the rest of the run
                self.failed.append(f"{key[0]}.{key[1]}: {type(error).__name__}: {error}")

    def _run_root_unguarded(self, key: tuple[str, str], instance: ObjectV | None) -> None:
        self._budget = _CALLS_PER_ROOT
        self._fresh = set()
        self._unwritten = set()
        if key[0] == "<module>":
            module = self._modules[key[1]]
            frame = _Frame(module, {}, MAIN_THREAD, (), 0, ())
            self._block(tuple(module.code.body), frame, _State())
            return
        module_name, qualname = key
        function = self._functions[key]
        module = self._modules[module_name]
        bound: Value | None = instance
        if bound is None and function.class_name:
            bound = ObjectV(module_name, function.class_name)
        start = _State()
        holder = (module_name, function.class_name) if function.class_name else None
        if holder is not None:
            # Copies another call of the object left unfinished: code outside the project may
            # call this method next (``propose()`` starts a copy into a field, ``get()`` reads it).
            start.pending = {
                key: replace(copy, earlier_call=True)
                for key, copy in self._left_pending.get(holder, {}).items()
            }
            self._heap_reads.add((holder[0], holder[1], _LEFT_PENDING))
            self._inherited_copies += len(start.pending)
        frame = _Frame(module, {}, MAIN_THREAD, (), 0, ())
        _, end = self._invoke(FuncV(module_name, qualname, bound), (), (), start, frame, None)
        if holder is not None and end.pending:
            left = self._left_pending.setdefault(holder, {})
            if not end.pending.keys() <= left.keys():
                self._changed((holder[0], holder[1], _LEFT_PENDING))
            left.update(end.pending)

    def _run_thread(self, start: _ThreadStart) -> None:
        self._budget = _CALLS_PER_ROOT
        self._fresh = set()
        self._unwritten = set()
        target = start.target
        if isinstance(target, LambdaV):
            thread = MAIN_THREAD if start.same_thread else "thread running a lambda"
            state = start.state.copy()
            if not start.same_thread:
                state.streams = ()
            caller = _Frame(self._modules[target.module], {}, thread, start.flow, 0, ())
            self._call_lambda(target, start.arguments, state, caller, None)
            return
        if not isinstance(target, FuncV):
            return
        function = self._functions.get((target.module, target.qualname))
        if function is None:
            return
        thread = MAIN_THREAD if start.same_thread else f"thread running {function.qualname}"
        module = self._modules[target.module]
        state = start.state.copy()
        if not start.same_thread:
            state.streams = ()
        caller = _Frame(module, {}, thread, start.flow, 0, ())
        self._invoke(target, (*target.partial, *start.arguments), (), state, caller, None)

    # --------------------------------------------------------------- functions
    def _invoke(
        self,
        func: FuncV,
        args: tuple[Value, ...],
        kwargs: tuple[tuple[str, Value], ...],
        state: _State,
        caller: _Frame,
        call: ir.Call | None,
    ) -> tuple[Value, _State]:
        key = (func.module, func.qualname)
        function = self._functions.get(key)
        if function is None or caller.depth >= _MAX_DEPTH or func.qualname in caller.stack:
            return UNKNOWN, state
        self._budget -= 1
        if self._budget < 0:
            return taint([*args, *(v for _, v in kwargs)]), state  # this root has had its share
        if (
            key not in self._reach
            and not state.streams
            # An unfinished copy into host memory: it may read the buffer (``float(x.sum())``).
            and not state.pending
            and caller.thread == MAIN_THREAD
            # A getter or accessor is cheap and may hand out a field that matters.
            and not _is_property(function)
            and not (len(function.body) == 1 and isinstance(function.body[0], ir.Return))
            and not _hands_out_a_field(function)
            # A helper handed a stream or event may hand it back (``_ok(cuStreamCreate())``).
            and not any(_carries_handle(value) for value in (*args, *(v for _, v in kwargs)))
            # A constructor of a class whose methods matter sets the fields they read.
            and not (
                function.name == "__init__" and (func.module, function.class_name) in self._reach_classes
            )
        ):
            # It names nothing that matters, and no side stream or copy thread runs it.
            return taint([*args, *(v for _, v in kwargs)]), state
        self._entered.add(key)
        if call is not None or caller.thread != MAIN_THREAD:
            self._called.add(key)
        module = self._modules[func.module]
        flow = caller.flow
        if call is not None:
            flow = (
                *flow,
                FlowStep(caller.module.path, call.span.line, call.span.column, f"calls {function.qualname}"),
            )
        env = self._bind(function, func.bound, args, kwargs, module, caller, call)
        if func.closure:
            env = {**dict(func.closure), **env}
        thread = caller.thread
        if thread == MAIN_THREAD and _taught(
            f"{func.module}.{func.qualname}", self._taught.copy_thread_functions
        ):
            thread = f"copy thread running {function.qualname} (configured)"
        frame = _Frame(module, env, thread, flow, caller.depth + 1, (*caller.stack, func.qualname))
        frame.global_names = function.global_names
        if call is not None:
            frame.aliases = self._aliases(function, func.bound, call, caller)
        holder = (func.bound.module, func.bound.qualname) if isinstance(func.bound, ObjectV) else None
        if holder is not None:
            carried: set[str] = self._left_ordered.get(holder, set()) - self._left_unordered
            if carried:
                state.carried = state.carried | carried
        started = self._clock
        bound_at_entry = dict(env)
        entered_on = state.streams
        state = self._block(function.body, frame, state)
        if call is not None and not call.star_args:
            self._fields_set_through_parameters(function, func.bound, bound_at_entry, frame, call, caller)
        ends = [*frame.exits, *([] if state.returned else [state])]
        if holder is not None:
            # Each way out on its own: one that issued no copy on a stream leaves it as it was.
            for end in ends or [state]:
                self._note_exit(holder, end, started)
        state = _merge(ends, [None] * len(ends)) if ends else state
        state.returned = False
        if call is not None:
            # A callee that ``set_stream``s and returns without restoring installs that stream
            # as the thread's current one (vLLM's ``current_stream()`` on its first call): the
            # caller's later work, its producer's kernels included, runs there.
            state.streams = entered_on
        return (join(frame.returns) if frame.returns else UNKNOWN), state

    def _call_lambda(
        self, function: LambdaV, args: tuple[Value, ...], state: _State, caller: _Frame, call: ir.Call | None
    ) -> tuple[Value, _State]:
        """A lambda's body, over the names it closed over and its arguments."""
        if caller.depth >= _MAX_DEPTH:
            return UNKNOWN, state
        env = dict(function.closure)
        env.update(zip(function.params, args, strict=False))
        flow = caller.flow
        if call is not None:
            flow = (*flow, FlowStep(caller.module.path, call.span.line, call.span.column, "calls a lambda"))
        module = self._modules[function.module]
        frame = _Frame(module, env, caller.thread, flow, caller.depth + 1, caller.stack)
        return self._eval(function.body, frame, state)

    def _fields_set_through_parameters(
        self,
        function: ir.Function,
        bound: Value | None,
        given: dict[str, Value],
        frame: _Frame,
        call: ir.Call,
        caller: _Frame,
    ) -> None:
        """A struct the caller passed by name and the callee filled field by field
        (``set_order(attrs, 3)`` doing ``attrs.srcAccessOrder = order``): the caller's
        variable now has those fields."""
        params = [p for p in function.params if not p.star]
        if bound is not None and params and not _is_static(function):
            params = params[1:]
        for param, arg in zip(params, call.args, strict=False):
            filled = frame.env.get(param.name)
            if (
                isinstance(arg, ir.Name)
                and isinstance(filled, RecordV)
                and filled is not given.get(param.name)
            ):
                caller.env[arg.id] = filled

    def _note_exit(self, holder: tuple[str, str], state: _State, started: int) -> None:
        """How a method call leaves each stream it issued copies on: ordered behind the producer
        after its last copy (the object's next call finds it ordered), or not."""
        owned = self._field_streams.get(holder, set())
        for stream, issued in state.issued.items():
            if issued < started or stream not in owned:
                continue  # issued before this call, or on a stream another object holds
            barrier = state.barriers.get(stream)
            if barrier is not None and barrier > max(issued, state.launched):
                self._left_ordered.setdefault(holder, set()).add(stream)
            else:
                self._left_unordered.add(stream)

    def _aliases(
        self, function: ir.Function, bound: Value | None, call: ir.Call, caller: _Frame
    ) -> dict[str, str]:
        """Which caller buffer each parameter names, for buffers known only by their spelling."""
        if call.star_args:
            return {}
        params = [p for p in function.params if not p.star]
        if bound is not None and params and not _is_static(function):
            params = params[1:]
        pairs = list(zip((p.name for p in params), call.args, strict=False)) + list(call.kwargs)
        aliases = {}
        for name, expr in pairs:
            if isinstance(expr, (ir.Name, ir.Attr)):
                identity = self._identity(UNKNOWN, expr, caller)
                if identity:
                    aliases[name] = identity
        return aliases

    def _bind(
        self,
        function: ir.Function,
        bound: Value | None,
        args: tuple[Value, ...],
        kwargs: tuple[tuple[str, Value], ...],
        module: ModuleEntry,
        caller: _Frame,
        call: ir.Call | None = None,
    ) -> dict[str, Value]:
        env: dict[str, Value] = {}
        params = list(function.params)
        positional = list(args)
        if bound is not None and params and not _is_static(function):
            env[params[0].name] = bound
            params = params[1:]
        given = dict(kwargs)
        default_frame = _Frame(module, {}, caller.thread, caller.flow, caller.depth, caller.stack)
        for param in params:
            if param.star == "*":
                env[param.name] = SeqV(tuple(positional))
                positional = []
            elif param.star == "**":
                env[param.name] = UNKNOWN
            elif positional:
                env[param.name] = positional.pop(0)
            elif param.name in given:
                env[param.name] = given[param.name]
            elif param.default is not None:
                value = self._eval(param.default, default_frame, _State())[0]
                if isinstance(value, ConstV) and not value.origin:
                    value = replace(
                        value,
                        origin=f"the default of parameter '{param.name}'",
                        # With *args or **kwargs at the call, the argument may come from them.
                        defaulted_at=(
                            (caller.module.path, call.span, param.name)
                            if call and not call.star_args
                            else None
                        ),
                    )
                env[param.name] = value
            else:
                env[param.name] = Unknown(param.name, from_caller=self._fallback and caller.depth == 0)
        return env

    # -------------------------------------------------------------- statements
    def _block(self, statements: Sequence[ir.Stmt], frame: _Frame, state: _State) -> _State:
        for index, statement in enumerate(statements):
            self._clock += 1
            if isinstance(statement, ir.Assign):
                value, state = self._eval(statement.value, frame, state)
                if isinstance(value, QueueGetV):
                    return self._after_get(statement, value, statements[index + 1 :], frame, state)
                for target in statement.targets:
                    state = self._assign(target, value, frame, state, statement)
                continue
            if isinstance(statement, ir.If):
                before = frame.env  # _if_paths gives each branch its own copy
                state, finished = self._after_if(
                    before, self._if_paths(statement, frame, state), statements[index + 1 :], frame
                )
                if finished:
                    return state
            else:
                state = self._statement(statement, frame, state)
            if state.returned:
                break
        return state

    def _statement(self, statement: ir.Stmt, frame: _Frame, state: _State) -> _State:
        if isinstance(statement, ir.AugAssign):
            _, state = self._eval(statement.value, frame, state)
            return self._write(statement.target, frame, state, statement.span)
        if isinstance(statement, ir.Eval):
            if not statement.awaited and self._coroutine_call(statement.value, frame, state):
                return state  # ``self.barrier()`` of an ``async def`` without ``await``: never runs
            return self._eval(statement.value, frame, state)[1]
        if isinstance(statement, ir.Return):
            if statement.value is not None:
                value, state = self._eval(statement.value, frame, state)
                frame.returns.append(value)
            state.returned = True
            leaving = state.copy()
            leaving.returned = False  # it goes on at the caller, merged with the other exits
            frame.exits.append(leaving)
            return state
        if isinstance(statement, ir.Jump):
            if frame.loops:
                # The path goes on after the loop, or at its next turn: the rest of the body
                # does not run on it.
                leaving = state.copy()
                leaving.returned = False
                frame.loops[-1][0 if statement.leaves else 1].append(leaving)
                state.returned = True
            return state
        if isinstance(statement, ir.Yield):
            yielded: Value = UNKNOWN
            if statement.value is not None:
                yielded, state = self._eval(statement.value, frame, state)
            if frame.on_yield is not None:
                return frame.on_yield(state, yielded, statement.span)
            if frame.thread == MAIN_THREAD:
                # A generator resumed by its caller (``next(layers)`` once per layer): between
                # the yield and the resumption the caller's kernels run and may write, or read,
                # any buffer.
                stream = self._stream(frame, state)
                state.writes[_ANY_BUFFER] = (
                    self._clock,
                    statement.span.line,
                    stream.key if stream is not None else f"current@{frame.thread}",
                )
            return state
        if isinstance(statement, ir.If):
            before = frame.env
            return self._after_if(before, self._if_paths(statement, frame, state), (), frame)[0]
        if isinstance(statement, ir.Loop):
            return self._loop(statement, frame, state)
        if isinstance(statement, ir.With):
            return self._with(statement, statement.items, frame, state)
        if isinstance(statement, ir.Try):
            state = self._block(statement.body, frame, state)
            if statement.handlers:
                ends = [state] + [self._block(h, frame, state.copy()) for h in statement.handlers]
                steps = [self._step(frame, statement.span, "path without an exception")] + [
                    self._step(frame, statement.span, "an except branch") for _ in statement.handlers
                ]
                state = _merge(ends, steps)
            state = self._block(statement.orelse, frame, state)
            return self._block(statement.final, frame, state)
        return state

    def _if_paths(self, statement: ir.If, frame: _Frame, state: _State) -> list[_Path]:
        """The paths through an ``if``: each one's state, names, and the step that names it."""
        test, state = self._eval(statement.test, frame, state)
        truth = _truth(test)
        if truth is not None:
            state = self._block(statement.body if truth else statement.orelse, frame, state)
            return [_Path(state, frame.env, None)]
        line = statement.span.line
        taken, other = state.copy(), state.copy()
        queried = self._queried(statement.test, frame, state)
        if queried is not None:
            # ``if event.query():`` — the branch where it returned True has waited for it.
            self._host_waited(queried[0], other if queried[1] else taken)
        if isinstance(statement.test, ir.Equals):
            # ``if stream != current: stream.wait_stream(current)``: on the path where the two
            # streams are one, each is ordered behind the other as it is behind itself.
            same = taken if not statement.test.negated else other
            left = self._peek(statement.test.left, frame)
            right = self._peek(statement.test.right, frame)
            for waiter, producer in ((left, right), (right, left)):
                if (
                    isinstance(waiter, StreamV)
                    and isinstance(producer, StreamV)
                    and waiter.key != producer.key
                    and self._is_producer(producer, waiter)
                ):
                    same.barriers[waiter.key] = self._clock
                    same.gaps.pop(waiter.key, None)
        entry_names = frame.env  # each branch runs on its own copy
        frame.env = dict(entry_names)
        narrowed = _narrowed(statement.test, frame.env)
        if narrowed is None:
            taken = self._block(statement.body, frame, taken)
        else:
            # ``if batch:`` — in the body the collection holds something (``[]`` and ``None``
            # are the other branch's), so a loop over it runs.
            name, before, inside = narrowed
            frame.env[name] = inside
            taken = self._block(statement.body, frame, taken)
            if frame.env.get(name) is inside:
                frame.env[name] = before
        taken_env = frame.env
        frame.env = dict(entry_names)
        other = self._block(statement.orelse, frame, other)
        other_label = (
            f"else branch of the if at line {line}"
            if statement.has_else
            else (f"path where the if at line {line} is not taken")
        )
        return [
            _Path(taken, taken_env, self._step(frame, statement.span, f"if branch at line {line}")),
            _Path(other, frame.env, self._step(frame, statement.span, other_label)),
        ]

    def _after_if(
        self, before: dict[str, Value], paths: list[_Path], rest: Sequence[ir.Stmt], frame: _Frame
    ) -> tuple[_State, bool]:
        """Where the paths of an ``if`` join, given the names before it: (the state, whether
        ``rest`` ran already). Paths that bind a stream or event differently (``stream = side
        if overlap else current``) each run the rest of the block on their own, so that a
        barrier taken on one path is not paired with the stream the other path chose."""
        live = [path for path in paths if not path.state.returned]
        split = (
            len(live) > 1
            and rest
            and self._splits < _MAX_SPLITS
            and _streams_differ(live[0].env, live[1].env)
        )
        if not split:
            frame.env = _merge_names(before, paths)
            return _merge([p.state for p in paths], [p.step for p in paths]), False
        ends, envs = [], []
        self._splits += 1
        try:
            for path in paths:
                frame.env = dict(path.env)
                ends.append(path.state if path.state.returned else self._block(rest, frame, path.state))
                envs.append(_Path(ends[-1], frame.env, path.step))
        finally:
            self._splits -= 1
        frame.env = _merge_names(before, envs)
        return _merge(ends, [p.step for p in paths]), True

    def _loop(self, statement: ir.Loop, frame: _Frame, state: _State) -> _State:
        iterated, state = self._eval(statement.iter, frame, state)
        element = _element(iterated)
        if statement.target is not None:
            state = self._assign(statement.target, element, frame, state, statement)
        # ``while True:`` ends only where its body breaks out (or returns).
        forever = statement.target is None and _truth(iterated) is True
        if not self._reporting:  # collecting fields and hand-offs: one turn is enough
            last, broke = self._turn(statement, frame, state.copy())
            ends = [*broke] if forever else [state, last, *broke]
            return self._block(statement.orelse, frame, _merge_or_end(ends, last))
        # The first turn starts from the state before the loop; a second sees what the end of
        # the body leaves for the next iteration. Each is its own path: merging their entries
        # would pair one path's writes with the other's barriers.
        first, broke = self._turn(statement, frame, state.copy())
        if statement.target is not None:
            _forget_fields(frame.env, statement.target)  # the next turn's element is another
        last = first
        if not first.returned:
            last, broke_later = self._turn(statement, frame, first.copy())
            broke = broke + broke_later
        # Over a sequence the code spells out (``*streams`` given two streams) the body runs.
        # So it does over a collection of events or streams: one that is empty holds no work
        # to wait for, so the path that skips the body waits for nothing either.
        runs_once = _holds_something(iterated) or _orders_something(element) or _waits_on_each(statement)
        if forever:
            state = _merge_or_end(broke, last)
        else:
            state = _merge_or_end([last, *broke] if runs_once else [state, last, *broke], last)
        queried = self._queried(statement.iter, frame, state) if statement.target is None else None
        if queried is not None and queried[1]:
            self._host_waited(queried[0], state)  # ``while not event.query(): ...`` ends once it is done
        return self._block(statement.orelse, frame, state)

    def _turn(self, statement: ir.Loop, frame: _Frame, start: _State) -> tuple[_State, list[_State]]:
        """One run of a loop's body: the state its turn ends in (continues included) and the
        states of the paths that broke out."""
        frame.loops.append(([], []))
        try:
            end = self._block(statement.body, frame, start)
        finally:
            broke, continued = frame.loops.pop()
        if continued:
            end = _merge_or_end([end, *continued], end)
        return end, broke

    def _with(
        self,
        statement: ir.With,
        items: tuple[tuple[ir.Expr, ir.Expr | None], ...],
        frame: _Frame,
        state: _State,
    ) -> _State:
        if not items:
            return self._block(statement.body, frame, state)
        (context_expr, name), rest = items[0], items[1:]
        context, state = self._eval(context_expr, frame, state)
        if isinstance(context, UnionV) and all(_stream_context(option) for option in context.options):
            # One of several streams (``streams[i % 2]``): the block runs on each, paths merged.
            ends = []
            for option in context.options:
                entered = ContextV(option) if isinstance(option, StreamV) else option
                ends.append(
                    self._with_context(statement, entered, context_expr, name, rest, frame, state.copy())
                )
            return _merge(ends, [None] * len(ends))
        return self._with_context(statement, context, context_expr, name, rest, frame, state)

    def _with_context(
        self,
        statement: ir.With,
        context: Value,
        context_expr: ir.Expr,
        name: ir.Expr | None,
        rest: tuple[tuple[ir.Expr, ir.Expr | None], ...],
        frame: _Frame,
        state: _State,
    ) -> _State:
        stream = _stream_context(context)
        if stream is not None:
            if name is not None:
                state = self._assign(name, stream, frame, state, statement)
            saved = state.streams
            spelled = self._plain_stream_spelling(context_expr, statement, saved, frame)
            api = _device_api(context_expr, frame.module.code.imports)
            entered = (frame.module.path, statement.span, spelled if api[0] else "", api, frame.stack)
            state.streams = (*saved, replace(stream, entered_at=entered))
            state = self._with(statement, rest, frame, state)
            state.streams = saved
            return state
        if isinstance(context, GeneratorContextV):
            return self._enter_generator(context, statement, name, rest, frame, state)
        if name is not None:
            state = self._assign(name, context, frame, state, statement)
        return self._with(statement, rest, frame, state)

    def _plain_stream_spelling(
        self, context_expr: ir.Expr, statement: ir.With, enclosing: tuple[StreamV, ...], frame: _Frame
    ) -> str:
        """How a barrier placed before ``statement`` can name the stream it enters, or "" when
        no barrier placed there would be right: another side stream is current there, an
        earlier item of the same ``with`` binds the stream, or naming it again could run code
        (a property, a call)."""
        if not isinstance(context_expr, ir.Call) or not context_expr.args:
            return ""
        if statement.items[0][0] is not context_expr or any(s.current_of != MAIN_THREAD for s in enclosing):
            return ""
        spelled = context_expr.args[0]
        if isinstance(spelled, ir.Name):
            return spelled.id
        if isinstance(spelled, ir.Attr) and isinstance(spelled.base, ir.Name):
            holder = frame.env.get(spelled.base.id)
            if (
                isinstance(holder, ObjectV)
                and self._method(holder.module, holder.qualname, spelled.name) is None
                # A field that may hold None (no stream on this device): a barrier on it would fail.
                and not any(
                    _is_none(value) for value in self._stored((holder.module, holder.qualname, spelled.name))
                )
            ):
                return _spelling(spelled)  # a field of a project object, not a property
        return ""

    def _enter_generator(
        self,
        context: GeneratorContextV,
        statement: ir.With,
        name: ir.Expr | None,
        rest: tuple[tuple[ir.Expr, ir.Expr | None], ...],
        frame: _Frame,
        state: _State,
    ) -> _State:
        func = context.function
        function = self._functions[(func.module, func.qualname)]
        module = self._modules[func.module]
        step = FlowStep(
            frame.module.path, statement.span.line, statement.span.column, f"enters {function.qualname}"
        )
        inner = _Frame(
            module,
            dict(context.arguments),
            frame.thread,
            (*frame.flow, step),
            frame.depth + 1,
            (*frame.stack, func.qualname),
        )
        entered = False

        def body(at_yield: _State, yielded: Value, _: Span) -> _State:
            nonlocal entered
            entered = True
            outer_streams = at_yield.streams
            if name is not None:
                at_yield = self._assign(name, yielded, frame, at_yield, statement)
            result = self._with(statement, rest, frame, at_yield)
            result.streams = outer_streams
            return result

        inner.on_yield = body
        self._entered.add((func.module, func.qualname))
        self._called.add((func.module, func.qualname))
        state = self._block(function.body, inner, state)
        return state if entered else self._with(statement, rest, frame, state)

    def _after_get(
        self,
        statement: ir.Assign,
        queue: QueueGetV,
        rest: Sequence[ir.Stmt],
        frame: _Frame,
        state: _State,
    ) -> _State:
        """``item = q.get()``: the rest of the block runs once per payload put on the queue,
        in the state the putter left (its barriers), with the putter's path."""
        puts = self._puts.get(queue.queue.key, [])
        if "@" not in queue.queue.key:
            # The queue of an instance the analysis does not place stands for any instance's
            # queue made there: what every one of them was given.
            puts = [
                put
                for key, made in self._puts.items()
                if key.split("@")[0] == queue.queue.key
                for put in made
            ]
        if not puts:
            for target in statement.targets:
                state = self._assign(target, UNKNOWN, frame, state, statement)
            return self._block(rest, frame, state)
        ends, steps = [], []
        for put in list(puts):  # the rest of the block may put on the same queue
            put_at = put.flow[-1]
            step = FlowStep(
                frame.module.path,
                statement.span.line,
                statement.span.column,
                f"taken off {queue.queue.label} (put at {put_at.path}:{put_at.line}) by {_the(frame.thread)}",
            )
            branch = put.state.copy()
            branch.streams = state.streams
            variant = replace(frame, env=dict(frame.env), flow=(*put.flow, step))
            for target in statement.targets:
                branch = self._assign(target, put.payload, variant, branch, statement)
            ends.append(self._block(rest, variant, branch))
            steps.append(step)
            frame.env.update(variant.env)
        return _merge(ends, steps)

    def _assign(
        self, target: ir.Expr, value: Value, frame: _Frame, state: _State, statement: object
    ) -> _State:
        if (
            isinstance(value, StreamV)
            and value.label == _NEW_STREAM
            and isinstance(target, (ir.Name, ir.Attr))
        ):
            value = replace(value, label=_spelling(target))  # reports name a stream by where it is kept
        elif isinstance(target, ir.Attr) and isinstance(value, (SeqV, RecordV)):
            value = _label_streams(value, _spelling(target))  # ``self.streams[1]``, ``self._streams['load']``
        if isinstance(target, ir.Name):
            if target.id in frame.global_names:
                self._remember((frame.module.name, "<globals>", target.id), value)
            if frame.env.get(target.id) is not value:
                _forget_fields(frame.env, target)
            frame.env[target.id] = value
        elif isinstance(target, ir.Attr):
            holder, state = self._eval(target.base, frame, state)
            if isinstance(holder, ObjectV):
                # In one construction a later assignment replaces an earlier one for this
                # instance (``super().__init__()`` sets it, the subclass sets it again).
                chain = self._constructing.get(holder)
                if chain is not None:
                    earlier = chain.get(target.name)
                    if earlier is not None and holder.site:
                        key = (holder.module, f"{holder.qualname}@{holder.site}", target.name)
                        values = self._stored(key)
                        if earlier in values and earlier != value:
                            values.remove(earlier)
                            self._changed(key)
                    chain[target.name] = value
                self._remember_field(holder, target.name, value)
                if isinstance(statement, ir.Assign) and _has_none_branch(statement.value):
                    # ``self.stream = Stream() if on_cuda else None``: the field may hold None.
                    self._remember_field(holder, target.name, ConstV(None, "None", frame.module.path, None))
                if isinstance(target.base, ir.Name):  # later reads in this function see this value
                    frame.env[f"{target.base.id}.{target.name}"] = value
            elif isinstance(holder, ClassV):
                self._remember((holder.module, holder.qualname, target.name), value)
            elif isinstance(target.base, ir.Name):
                frame.env[f"{target.base.id}.{target.name}"] = value
                if isinstance(holder, (RecordV, Unknown, ExternalV)):
                    # A local struct filled field by field (``attrs.srcAccessOrder = ...``).
                    fields = dict(holder.fields) if isinstance(holder, RecordV) else {}
                    fields[target.name] = value
                    type_name = holder.type_name if isinstance(holder, RecordV) else ""
                    frame.env[target.base.id] = RecordV(type_name, tuple(fields.items()))
        elif isinstance(target, ir.Seq):
            items = _unpack_starred(value, target.items)
            for item_target, item in zip(target.items, items, strict=True):
                inner = item_target.value if isinstance(item_target, ir.Starred) else item_target
                state = self._assign(inner, item, frame, state, statement)
        elif isinstance(target, ir.Index):
            keyed = _keyed_spelling(target)
            if keyed:
                frame.env[keyed] = value  # later reads of ``state[key]`` here see this value
            memory = memory_of(value)
            if memory is None and isinstance(value, Unknown):
                # Something the code does not place goes in, so what comes out may be anything.
                memory = Memory.UNKNOWN
            if isinstance(self._peek(target.base, frame), TensorV):
                pass  # ``buf[a:b] = x`` writes into a tensor, which holds no element
            elif memory is not None:
                # ``caches[name] = tensor``: the container now holds that memory (that buffer).
                held = value if isinstance(value, TensorV) else TensorV(memory)
                state = self._holds(target.base, held, frame, state)
            elif isinstance(value, (StreamV, EventV, ObjectV, QueueV)):
                state = self._holds(target.base, value, frame, state)  # ``events[key] = event``
            if not (isinstance(value, TensorV) and value.key):
                # Storing a buffer made elsewhere in a container is no kernel; ``t[i] = x`` is.
                span = target.base.span if isinstance(target.base, (ir.Name, ir.Attr)) else None
                state = self._write(target, frame, state, span)
        return state

    def _holds(self, container: ir.Expr, element: Value, frame: _Frame, state: _State) -> _State:
        if isinstance(container, ir.Name):
            held = frame.env.get(container.id, UNKNOWN)
            if isinstance(held, (Unknown, TensorV)):
                # A container made elsewhere: its other elements are still unknown. A tensor
                # written in place (``buf[a:b] = x``) is still the same buffer.
                return state
            frame.env[container.id] = join([held, element])
        elif isinstance(container, ir.Attr):
            holder, state = self._eval(container.base, frame, state)
            if isinstance(holder, ObjectV):
                self._remember_field(holder, container.name, element)
            if isinstance(container.base, ir.Name):
                local = f"{container.base.id}.{container.name}"
                if local in frame.env:
                    frame.env[local] = join([frame.env[local], element])
        return state

    def _remember_field(self, holder: ObjectV, name: str, value: Value) -> None:
        """A field of one instance, and of the class as a whole (what a generic ``self`` sees)."""
        for option in options(value):
            if isinstance(option, StreamV):
                self._field_streams.setdefault((holder.module, holder.qualname), set()).add(option.key)
        self._remember((holder.module, holder.qualname, name), value)
        if holder.site:
            self._remember((holder.module, f"{holder.qualname}@{holder.site}", name), value)

    def _remember(self, key: tuple[str, str, str], value: Value) -> None:
        """An attribute or module global assigned somewhere: readers anywhere may see it."""
        values = self._heap.setdefault(key, [])
        if value not in values and len(values) < 8:
            values.append(value)
            if _opens_paths(value):
                self._changed(key)

    def _changed(self, key: tuple[str, str, str]) -> None:
        """A field or global changed in the entry point now running (the last one numbered)."""
        self._heap_changed[key] = self._root_runs - 1

    def _stored(self, key: tuple[str, str, str]) -> list[Value]:
        """What was assigned to a field or global so far (noting that the running entry point
        read it)."""
        self._heap_reads.add(key)
        return self._heap.get(key, [])

    # ------------------------------------------------------------- host reads
    def _identity(self, value: Value, expr: ir.Expr | None, frame: _Frame) -> str:
        """Which buffer an expression names: its allocation or copy site where known, else
        its spelling, scoped to the object or function that holds it."""
        if isinstance(value, TensorV) and value.key:
            return value.key
        if isinstance(expr, ir.Index):
            return self._identity(UNKNOWN, expr.base, frame)
        if (
            isinstance(expr, ir.Call)
            and isinstance(expr.func, ir.Attr)
            and expr.func.name in SAME_MEMORY_METHODS
        ):
            return self._identity(UNKNOWN, expr.func.base, frame)
        if isinstance(expr, ir.Name):
            if expr.id in frame.aliases:
                return frame.aliases[expr.id]
            return f"{frame.module.name}:{'.'.join(frame.stack)}:{expr.id}"
        if isinstance(expr, ir.Attr):
            chain: list[str] = []
            root: ir.Expr = expr
            while isinstance(root, ir.Attr):
                chain.insert(0, root.name)
                root = root.base
            if isinstance(root, ir.Name):
                holder = frame.env.get(root.id)
                if isinstance(holder, ObjectV):
                    return f"{holder.module}.{holder.qualname}@{holder.site}:{'.'.join(chain)}"
                return f"{self._identity(UNKNOWN, root, frame)}.{'.'.join(chain)}"
        return ""

    def _host_read(
        self, value: Value, expr: ir.Expr | None, how: str, call: ir.Call, frame: _Frame, state: _State
    ) -> None:
        if not state.pending or not self._reporting or (isinstance(value, TensorV) and value.address):
            return
        copy = state.pending.get(self._identity(value, expr, frame))
        if copy is not None:
            read = _read_spelling(expr) if expr is not None else ""
            self.host_reads.append(
                HostRead(frame.module.path, call.span, call.lines, how, copy, frame.flow, frame.thread, read)
            )

    def _host_waited(self, target: Value | None, state: _State) -> None:
        """The host waited for ``target`` (a stream or event; None: the whole device)."""
        if target is None or isinstance(target, (ExternalV, ModuleV)):
            state.completed(None)
        elif isinstance(target, StreamV):
            state.completed(None if target.key.startswith("opaque:") else target.key)
            if target.key.startswith("current@") and state.streams:
                state.completed(state.streams[-1].key)  # inside a stream block, that block's stream
        elif isinstance(target, EventV):
            record = state.records.get(target.key)
            # Every copy launched before the record counts as waited for, whatever its stream:
            # streams switched by means the analysis does not model (``set_stream``) must not
            # make a correct wait look wrong. An unseen record counts as after every copy.
            state.completed(None, before=record[1] if record is not None else None)
        elif isinstance(target, Unknown):
            state.completed(None)
        elif isinstance(target, UnionV):
            # One of several events or streams: done is what each of them would have finished.
            remaining: set[str] = set()
            for option in target.options:
                trial = state.copy()
                self._host_waited(option, trial)
                remaining |= trial.pending.keys()
            state.pending = {key: copy for key, copy in state.pending.items() if key in remaining}

    def _queried(self, test: ir.Expr, frame: _Frame, state: _State) -> tuple[Value, bool] | None:
        """(event or stream, negated) for a test ``x.query()`` or ``not x.query()``."""
        negated = isinstance(test, ir.Not)
        call = test.operand if isinstance(test, ir.Not) else test
        if isinstance(call, ir.Call) and isinstance(call.func, ir.Attr) and call.func.name == "query":
            target, _ = self._eval(call.func.base, frame, state.copy())
            if isinstance(target, Unknown) and target.spelling:
                target = EventV(f"opaque:{target.spelling}", target.spelling)
            return target, negated
        return None

    def _write(self, target: ir.Expr, frame: _Frame, state: _State, span: Span | None) -> _State:
        """A write (``t[i] = x``, ``t.mul_(2)``) on the stream current here. A copy on another
        stream is ordered after it only by a barrier taken after it."""
        key = _root_spelling(target)
        if key:
            stream = self._stream(frame, state)
            where = stream.key if stream is not None else f"current@{frame.thread}"
            written = (self._clock, span.line if span else 0, where)
            keys = [key]
            # By the buffer too, where the code shows which one: a helper that writes it under
            # another name (``k_buf`` here, ``src`` in the copy) writes the same memory.
            buffer = self._peek(_root_expr(target), frame)
            if isinstance(buffer, TensorV) and buffer.key:
                keys.append(buffer.key)
            elif isinstance(buffer, Unknown) and buffer.spelling:
                keys.append(f"{_UNPLACED}{buffer.spelling}")  # as the caller spells it
            for written_key in keys:
                earlier = state.writes.get(written_key)
                if earlier is not None and earlier[2] != where and where in self._copy_streams:
                    continue  # a copy stream's write does not hide the producer's use before it
                state.writes[written_key] = written
        return state

    def _peek(self, expr: ir.Expr, frame: _Frame) -> Value:
        """What a name or a field of a named object holds, read without running code."""
        if isinstance(expr, ir.Name):
            return frame.env.get(expr.id, UNKNOWN)
        if isinstance(expr, ir.Attr):
            if isinstance(expr.base, ir.Name):
                local = frame.env.get(f"{expr.base.id}.{expr.name}")
                if local is not None:
                    return local
            holder = self._peek(expr.base, frame)
            if (
                isinstance(holder, ObjectV)
                and self._method(holder.module, holder.qualname, expr.name) is None
            ):
                return self._attribute(holder, expr, frame)
            if isinstance(holder, Unknown) and holder.spelling:
                return Unknown(f"{holder.spelling}.{expr.name}")
        return UNKNOWN

    # ------------------------------------------------------------- expressions
    def _eval(self, expr: ir.Expr, frame: _Frame, state: _State) -> tuple[Value, _State]:
        if isinstance(expr, ir.Name):
            return self._name(expr, frame), state
        if isinstance(expr, ir.Attr):
            base, state = self._eval(expr.base, frame, state)
            if isinstance(expr.base, ir.Name) and f"{expr.base.id}.{expr.name}" in frame.env:
                return frame.env[f"{expr.base.id}.{expr.name}"], state
            value = self._attribute(base, expr, frame)
            if all(
                isinstance(option, FuncV)
                and (getter := self._functions.get((option.module, option.qualname))) is not None
                and _is_property(getter)
                for option in options(value)
            ):
                # ``self.stream`` runs its getter (each one, for an object of several classes).
                results = []
                for option in options(value):
                    assert isinstance(option, FuncV)
                    result, state = self._invoke(option, (), (), state, frame, None)
                    results.append(result)
                return join(results), state
            return value, state
        if isinstance(expr, ir.Call):
            return self._call(expr, frame, state)
        if isinstance(expr, ir.Const):
            return ConstV(expr.value, repr(expr.value), frame.module.path, expr.span), state
        if isinstance(expr, ir.Seq):
            items = []
            for item in expr.items:
                value, state = self._eval(item, frame, state)
                items.append(value)
            return SeqV(tuple(items)), state
        if isinstance(expr, ir.Index):
            base, state = self._eval(expr.base, frame, state)
            index, state = self._eval(expr.index, frame, state)
            keyed = _keyed_spelling(expr)
            if keyed in frame.env:
                return frame.env[keyed], state
            return _index(base, index), state
        if isinstance(expr, ir.Cond):
            test, state = self._eval(expr.test, frame, state)
            truth = _truth(test)
            if truth is True:
                return self._eval(expr.then, frame, state)
            if truth is False:
                return self._eval(expr.orelse, frame, state)
            then, state = self._eval(expr.then, frame, state)
            orelse, state = self._eval(expr.orelse, frame, state)
            return join([then, orelse]), state
        if isinstance(expr, ir.Lambda):
            return LambdaV(frame.module.name, expr.params, expr.body, tuple(frame.env.items())), state
        if isinstance(expr, ir.Starred):
            return self._eval(expr.value, frame, state)
        if isinstance(expr, ir.Comp):
            iterable, state = self._eval(expr.iterable, frame, state)
            scope = replace(frame, env=dict(frame.env))
            state = self._assign(expr.target, _element(iterable), scope, state, expr)
            element, state = self._eval(expr.element, scope, state)
            count = _small_range(iterable)
            if isinstance(element, (StreamV, EventV)) and count:
                # ``[torch.cuda.Stream() for _ in range(2)]``: that many distinct streams.
                return SeqV(tuple(replace(element, key=f"{element.key}#{i}") for i in range(count))), state
            if all(
                isinstance(option, (StreamV, EventV, ObjectV, FuncV, QueueV, ClassV))
                for option in options(element)
            ):
                # ``[torch.cuda.Stream() for _ in range(n)]``, ``{c.name: c for c in classes}``
                return SeqV((element,)), state
            if isinstance(element, TensorV):
                return element, state  # buffers made in a loop: one allocation site, one buffer
            return taint([element]), state
        if isinstance(expr, ir.IsNone):
            operand, state = self._eval(expr.operand, frame, state)
            is_none = _is_none(operand)
            if is_none is None:
                return UNKNOWN, state
            return ConstV(is_none != expr.negated, "is None", frame.module.path, None), state
        if isinstance(expr, ir.Equals):
            left, state = self._eval(expr.left, frame, state)
            right, state = self._eval(expr.right, frame, state)
            if isinstance(left, ConstV) and isinstance(right, ConstV):
                equal = left.value == right.value
                return ConstV(equal != expr.negated, "==", frame.module.path, None), state
            return UNKNOWN, state
        if isinstance(expr, ir.Not):
            operand, state = self._eval(expr.operand, frame, state)
            truth = _truth(operand)
            if truth is None:
                return UNKNOWN, state
            spelt = operand.spelling if isinstance(operand, ConstV) else "..."
            where = operand.span if isinstance(operand, ConstV) else None
            return ConstV(not truth, f"not {spelt}", frame.module.path, where), state
        parts = []
        for part in expr.parts:
            value, state = self._eval(part, frame, state)
            parts.append(value)
        return taint(parts, same_buffer=True), state

    def _name(self, expr: ir.Name, frame: _Frame) -> Value:
        if expr.id in frame.env:
            return frame.env[expr.id]
        nested = (frame.module.name, f"{frame.stack[-1]}.{expr.id}") if frame.stack else None
        if nested is not None and nested in self._functions:
            # A function defined in the running one: it closes over the names bound here that
            # it (or a function inside it) uses. A closure held in one is kept without its own
            # names, so closures made in a loop do not nest in each other.
            used = self._closure_names(nested)
            closure = tuple(
                (name, replace(value, closure=()) if isinstance(value, FuncV) else value)
                for name, value in frame.env.items()
                if name in used
            )
            return FuncV(*nested, closure=closure)
        value = self._global(frame.module, expr.id, set())
        if isinstance(value, ConstV) and expr.span is not None:
            return replace(value, spelling=expr.id, path=frame.module.path, span=expr.span)
        if isinstance(value, Unknown):
            return Unknown(expr.id)
        return value

    def _closure_names(self, key: tuple[str, str]) -> set[str]:
        """The names a nested function and the functions inside it mention."""
        found = self._closure_names_of.get(key)
        if found is None:
            found = set(self._uses[id(self._functions[key].body)][1])
            for inner in self._nested_in.get(key, []):
                found |= self._closure_names(inner)
            self._closure_names_of[key] = found
        return found

    def _global(self, module: ModuleEntry, name: str, seen: set[tuple[str, str]]) -> Value:
        if (module.name, name) in seen:
            return UNKNOWN
        seen.add((module.name, name))
        code = module.code
        if (module.name, name) in self._functions:
            return FuncV(module.name, name)
        if (module.name, name) in self._classes:
            return ClassV(module.name, name)
        assigned = self._stored((module.name, "<globals>", name))
        if assigned:
            return join(assigned)
        if name in code.constants:
            if (module.name, name) not in self._constant_values:
                self._constant_values[(module.name, name)] = UNKNOWN  # a self-referential constant
                frame = _Frame(module, {}, MAIN_THREAD, (), _MAX_DEPTH - 1, ())
                self._constant_values[(module.name, name)] = self._eval(
                    code.constants[name], frame, _State()
                )[0]
            return self._constant_values[(module.name, name)]
        if name in code.imports:
            return self.resolve(self._absolute(module, code.imports[name]), seen)
        if name in ORDER_SPELLINGS:
            return ConstV(ORDER_SPELLINGS[name], name, module.path, None)
        return ExternalV(name) if name in _BUILTINS else UNKNOWN

    def _absolute(self, module: ModuleEntry, target: str) -> str:
        if not target.startswith("."):
            return target
        level = len(target) - len(target.lstrip("."))
        package = module.name.split(".")
        if not module.path.endswith("__init__.py"):
            package = package[:-1]
        base = package[: len(package) - (level - 1)] if level > 1 else package
        rest = target.lstrip(".")
        return ".".join([*base, rest] if rest else base)

    def resolve(self, dotted: str, seen: set[tuple[str, str]] | None = None) -> Value:
        """A dotted name: a project module, or a name inside one, or something external."""
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            name = ".".join(parts[:cut])
            if name in self._modules:
                module = self._modules[name]
                if cut == len(parts):
                    return ModuleV(name)
                value = self._global(module, parts[cut], seen if seen is not None else set())
                for attribute in parts[cut + 1 :]:
                    value = self._attribute(value, ir.Attr(ir.Name("_"), attribute), None)
                return value
        return ExternalV(dotted)

    def _attribute(self, base: Value, expr: ir.Attr, frame: _Frame | None) -> Value:
        name = expr.name
        if name in COPY_APIS:
            return CopyApiV(name)
        if name in ORDER_SPELLINGS:
            path = frame.module.path if frame else ""
            return ConstV(ORDER_SPELLINGS[name], _spelling(expr), path, expr.span)
        if isinstance(base, UnionV):
            return join([self._attribute(option, expr, frame) for option in base.options])
        if isinstance(base, ObjectV):
            method = self._method(base.module, base.qualname, name)
            if method is not None:
                if _is_classmethod(self._functions[method]):
                    return FuncV(method[0], method[1], ClassV(base.module, base.qualname))
                return FuncV(method[0], method[1], base)
            stored = (base.site and self._stored((base.module, f"{base.qualname}@{base.site}", name))) or (
                self._stored((base.module, base.qualname, name))
            )
            spelled = Unknown(f"{base.alias or 'self'}.{name}")
            if stored and self._written_where_not_run(base, name):
                stored = [*stored, spelled]
            return join(stored) if stored else spelled
        if isinstance(base, RecordV):
            found = base.get(name)
            return found if found is not None else UNKNOWN
        if isinstance(base, ModuleV):
            return self.resolve(f"{base.name}.{name}")
        if isinstance(base, ClassV):
            method = self._method(base.module, base.qualname, name)
            if method is not None:
                classmethod = _is_classmethod(self._functions[method])
                return FuncV(method[0], method[1], base if classmethod else None)
            # A class attribute assigned through ``cls.x = ...`` (a singleton's instance).
            stored = self._stored((base.module, base.qualname, name))
            return join(stored) if stored else UNKNOWN
        if isinstance(base, ExternalV):
            return ExternalV(f"{base.dotted}.{name}")
        if isinstance(base, (StreamV, EventV, Unknown)) and name in STREAM_HANDLES:
            return base  # a stream's handle (``s.cuda_stream``) names the stream itself
        if isinstance(base, ConstV) and name == "value":
            return base
        if isinstance(base, (TensorV, SeqV, UnionV)):
            return view_of(base)
        if isinstance(base, Unknown):
            owners = self._field_owners.get(name, set())
            if 1 <= len(owners) <= _MAX_OVERRIDES:
                stored = [v for module, cls in sorted(owners) for v in self._stored((module, cls, name))]
                handles = (TensorV, StreamV, EventV)
                held: list[Value] = [v for v in stored if isinstance(v, handles)]
                holders = {
                    owner
                    for owner in owners
                    if any(isinstance(v, handles) for v in self._stored((*owner, name)))
                }
                if held and holders == owners:
                    return join(held)  # what every class that has this field keeps in it
            if base.spelling:
                return Unknown(f"{base.spelling}.{name}")
        return UNKNOWN

    def _written_where_not_run(self, holder: ObjectV, name: str) -> bool:
        """Whether a method of the holder's class (or a base) that never ran assigns the field."""
        classes = [(holder.module, holder.qualname)]
        classes += self._base_classes(classes[0])
        return any(
            not writers <= self._entered
            for cls in classes
            if (writers := self._field_writers.get((cls[0], cls[1], name))) is not None
        )

    def _method(self, module: str, cls: str, name: str) -> tuple[str, str] | None:
        seen = 0
        queue = [(module, cls)]
        while queue and seen < 16:
            seen += 1
            current = queue.pop(0)
            if (current[0], f"{current[1]}.{name}") in self._functions:
                return current[0], f"{current[1]}.{name}"
            queue.extend(self._base_classes(current))
        return None

    def _arguments(
        self, call: ir.Call, frame: _Frame, state: _State
    ) -> tuple[list[Value], list[tuple[str, Value]], _State]:
        """A call's arguments, evaluated in order (their own calls may have effects)."""
        args: list[Value] = []
        for arg in call.args:
            value, state = self._eval(arg, frame, state)
            if isinstance(arg, ir.Starred):
                # ``fn(*args)``: the elements of a sequence the code spells are the arguments.
                # Otherwise one argument standing for them all (a pointer array's contents).
                args.extend(value.items if isinstance(value, SeqV) else (taint([value]),))
            else:
                args.append(value)
        kwargs: list[tuple[str, Value]] = []
        for key, arg in call.kwargs:
            value, state = self._eval(arg, frame, state)
            kwargs.append((key, value))
        return args, kwargs, state

    def _overrides(self, name: str, receiver: str = "", call: ir.Call | None = None) -> Value | None:
        """A method called on an object the analysis cannot place: every project method of
        that name that matters runs (a backend chosen by configuration), when there are few."""
        if self._methods_by_name is None:
            self._methods_by_name = {}
            for (module, qualname), function in self._functions.items():
                if (
                    function.class_name
                    and (module, qualname) in self._reach
                    and not function.name.startswith("__")
                ):
                    strong = (module, qualname) in self._relevant
                    self._methods_by_name.setdefault(function.name, []).append(
                        (module, function.class_name, strong)
                    )
        found_by_name = [
            (module, cls, strong)
            for module, cls, strong in self._methods_by_name.get(name, [])
            # ``comm.init()`` is not a call of ``Backend.init(self, caches, stream)``.
            if call is None or _accepts(self._functions[(module, f"{cls}.{name}")], call)
        ]
        # Those that name a stream construct or a copy first; only if none does, those that
        # write or read buffers (a helper class whose method fills what a copy reads).
        owners = [(m, c) for m, c, strong in found_by_name if strong] or [(m, c) for m, c, _ in found_by_name]
        if not 1 <= len(owners) <= _MAX_OVERRIDES:
            return None
        options = [
            FuncV(found[0], found[1], ObjectV(module, cls, alias=receiver))
            for module, cls in owners
            if (found := self._method(module, cls, name)) is not None
        ]
        return options[0] if len(options) == 1 else UnionV(tuple(options))

    def _super_method(self, call: ir.Call, frame: _Frame) -> FuncV | None:
        """``super().name(...)`` in a method: the base classes' ``name``, bound to this ``self``."""
        func = call.func
        if not (
            isinstance(func, ir.Attr)
            and isinstance(func.base, ir.Call)
            and isinstance(func.base.func, ir.Name)
            and func.base.func.id == "super"
            and frame.stack
        ):
            return None
        current = self._functions.get((frame.module.name, frame.stack[-1]))
        if current is None or not current.class_name or not current.params:
            return None
        receiver = frame.env.get(current.params[0].name)
        for base in self._base_classes((frame.module.name, current.class_name)):
            found = self._method(base[0], base[1], func.name)
            if found is not None:
                return FuncV(found[0], found[1], receiver)
        return None

    def _base_classes(self, cls: tuple[str, str]) -> list[tuple[str, str]]:
        if cls not in self._bases:
            self._bases[cls] = []
            info = self._classes.get(cls)
            if info is not None:
                frame = _Frame(self._modules[cls[0]], {}, MAIN_THREAD, (), _MAX_DEPTH - 1, ())
                for base in info.bases:
                    value = self._eval(base, frame, _State())[0]
                    if isinstance(value, ClassV):
                        self._bases[cls].append((value.module, value.qualname))
        return self._bases[cls]

    # ------------------------------------------------------------------- calls
    def _call(self, call: ir.Call, frame: _Frame, state: _State) -> tuple[Value, _State]:
        receiver: Value | None = None
        if (
            _spelling(call.func).rsplit(".", 1)[-1] in ("create_task", "ensure_future")
            and call.args
            and self._coroutine_call(call.args[0], frame, state)
        ):
            return UNKNOWN, self._schedule_task(call.args[0], call, frame, state)
        inherited = self._super_method(call, frame)
        if inherited is not None:
            passed, named, state = self._arguments(call, frame, state)
            return self._invoke(inherited, tuple(passed), tuple(named), state, frame, call)
        if isinstance(call.func, ir.Attr):
            # The receiver is evaluated once: its calls may have effects.
            receiver, state = self._eval(call.func.base, frame, state)
            spelled = call.func.base
            if isinstance(spelled, ir.Name) and f"{spelled.id}.{call.func.name}" in frame.env:
                callee = frame.env[f"{spelled.id}.{call.func.name}"]
            else:
                callee = self._attribute(receiver, call.func, frame)
            if isinstance(receiver, Unknown):
                callee = self._overrides(call.func.name, receiver.spelling, call) or callee
        else:
            callee, state = self._eval(call.func, frame, state)
        args, kwargs, state = self._arguments(call, frame, state)
        method = call.func.name if isinstance(call.func, ir.Attr) else ""
        for key, arg in call.kwargs:
            if key == "out":  # ``torch.index_select(x, 0, i, out=buf)`` writes buf
                state = self._write(arg, frame, state, call.span)
        special = self._special(call, method, receiver, callee, args, dict(kwargs), frame, state)
        if special is not None:
            return special
        if frame.thread == MAIN_THREAD and not isinstance(callee, (FuncV, ClassV)):
            state.launched = self._clock
        if isinstance(callee, Unknown):
            # Code the project does not show (``self.model.forward(batch, kv)``) may write the
            # buffers it is given, on the current stream.
            for arg, value in zip(call.args, args, strict=False):
                if memory_of(value) not in (None, Memory.HOST):
                    state = self._write(arg, frame, state, call.span)
        return self._dispatch(callee, tuple(args), tuple(kwargs), call, frame, state)

    def _dispatch(
        self,
        callee: Value,
        args: tuple[Value, ...],
        kwargs: tuple[tuple[str, Value], ...],
        call: ir.Call,
        frame: _Frame,
        state: _State,
    ) -> tuple[Value, _State]:
        name = _callee_name(callee)
        if name and _taught(name, self._taught.barrier_functions):
            streams = [a for a in args if isinstance(a, StreamV)]
            for stream in streams:
                state.barriers[stream.key] = self._clock
                state.gaps.pop(stream.key, None)
            if not streams:
                state.ordered_all = self._clock
            return UNKNOWN, state
        if name and _taught(name, self._taught.copy_functions):
            source, destination = [*args, UNKNOWN, UNKNOWN][:2]
            state = self._copy(
                call,
                name.rsplit(".", 1)[-1],
                frame,
                state,
                self._stream(frame, state),
                source,
                destination,
                _root_spelling(call.args[0]) if call.args else "",
                None,
            )
            return UNKNOWN, state
        if isinstance(callee, UnionV):
            # One of several callees runs (two connector classes behind one attribute): each
            # from the same state, the paths merged after.
            results, ends = [], []
            for option in callee.options:
                value, end = self._dispatch(option, args, kwargs, call, frame, state.copy())
                results.append(value)
                ends.append(end)
            return join(results), _merge(ends, [None] * len(ends))
        if isinstance(callee, FuncV):
            function = self._functions.get((callee.module, callee.qualname))
            if function is not None and any(
                _spelling(d).endswith("contextmanager") for d in function.decorators
            ):
                env = self._bind(function, callee.bound, args, kwargs, self._modules[callee.module], frame)
                return GeneratorContextV(callee, tuple(env.items())), state
            return self._invoke(callee, (*callee.partial, *args), kwargs, state, frame, call)
        if isinstance(callee, ClassV):
            return self._construct(callee, args, kwargs, call, frame, state)
        if isinstance(callee, ObjectV):
            # Calling an object runs its ``__call__``; a torch module's runs its ``forward``.
            for name in ("__call__", "forward"):
                method = self._method(callee.module, callee.qualname, name)
                if method is not None:
                    bound = FuncV(method[0], method[1], callee)
                    return self._invoke(bound, args, kwargs, state, frame, call)
            return UNKNOWN, state
        if isinstance(callee, LambdaV):
            return self._call_lambda(callee, args, state, frame, call)
        if isinstance(callee, CopyApiV):
            return self._copy_api(callee.api, args, dict(kwargs), call, frame, state)
        if isinstance(callee, ExternalV):
            return self._external(callee.dotted, args, dict(kwargs), call, frame, state)
        if isinstance(callee, Unknown) and callee.spelling:
            return self._external(callee.spelling, args, dict(kwargs), call, frame, state)
        if isinstance(callee, Unknown):
            return UNKNOWN, state  # a callable the code does not name (a class from a registry)
        return _opaque_call("", args, dict(kwargs)), state

    def _construct(
        self,
        cls: ClassV,
        args: tuple[Value, ...],
        kwargs: tuple[tuple[str, Value], ...],
        call: ir.Call,
        frame: _Frame,
        state: _State,
    ) -> tuple[Value, _State]:
        info = self._classes[(cls.module, cls.qualname)]
        init = self._method(cls.module, cls.qualname, "__init__")
        if init is None and info.fields:
            # A record: NamedTuple, dataclass or ctypes structure; fields by position and keyword.
            fields = list(zip(info.fields, args, strict=False)) + list(kwargs)
            return RecordV(info.qualname, tuple(fields)), state
        obj = ObjectV(cls.module, cls.qualname, _site(frame, call))
        if obj not in self._instances and len(self._instances) < 4096:
            self._instances.append(obj)
        if init is None:
            return obj, state
        self._constructing[obj] = {}
        try:
            _, state = self._invoke(FuncV(init[0], init[1], obj), args, kwargs, state, frame, call)
        finally:
            self._constructing.pop(obj, None)
        return obj, state

    def _special(
        self,
        call: ir.Call,
        method: str,
        receiver: Value | None,
        callee: Value,
        args: list[Value],
        kwargs: dict[str, Value],
        frame: _Frame,
        state: _State,
    ) -> tuple[Value, _State] | None:
        """Methods whose meaning does not depend on the receiver's class being in the project."""
        now = self._clock
        if (
            method in ("wait_stream", "wait_event")
            and self._fallback
            and isinstance(receiver, Unknown)
            and args
        ):
            # Run without its caller, a function waits on a stream it was given: the caller may
            # pass the very stream the copy runs on, so every stream counts as ordered.
            state.ordered_all = now
            return UNKNOWN, state
        if method in ("wait_stream", "wait_event", "record_event") and isinstance(receiver, Unknown):
            receiver = _opaque_stream(receiver) if receiver.spelling else receiver
        if "stream" in kwargs and method in ("record", "wait") and not args:
            args = [kwargs["stream"]]  # ``event.wait(stream=s)``, ``event.record(stream=s)``
        if (
            method in ("record", "wait")
            and isinstance(receiver, Unknown)
            and receiver.spelling
            and (method == "record" or args)
        ):
            receiver = EventV(f"opaque:{receiver.spelling}", receiver.spelling)
        if method == "wait_event" and args and isinstance(args[0], Unknown) and args[0].spelling:
            args = [EventV(f"opaque:{args[0].spelling}", args[0].spelling), *args[1:]]
        if method in ("wait_stream", "wait_event", "synchronize", "record", "wait") and isinstance(
            receiver, UnionV
        ):
            # ``for s in streams: s.wait_stream(cur)``: each stream the loop can name waits;
            # ``e.wait(s)`` with e one of several events (a method some classes override).
            for option in receiver.options:
                if isinstance(option, (StreamV, EventV)):
                    found = self._special(call, method, option, callee, args, kwargs, frame, state)
                    if found is not None:
                        state = found[1]
            return UNKNOWN, state
        if method == "wait" and isinstance(receiver, StreamV) and args:
            # cuda.core: ``stream.wait(event_or_stream)``.
            method = "wait_stream" if isinstance(args[0], StreamV) else "wait_event"
        if method == "wait_stream" and isinstance(receiver, StreamV) and args:
            producer = args[0]
            if self._is_producer(producer, receiver):
                state.barriers[receiver.key] = now
                state.gaps.pop(receiver.key, None)
            return UNKNOWN, state
        if method == "wait_event" and isinstance(receiver, StreamV) and args:
            return UNKNOWN, self._wait_event(receiver, args[0], state)
        if method == "wait" and isinstance(receiver, EventV):
            waiter = _opaque_stream(args[0]) if args else self._current(frame, state)
            if isinstance(waiter, StreamV):
                state = self._wait_event(waiter, receiver, state)
            return UNKNOWN, state
        if method == "record" and isinstance(receiver, EventV):
            stream = _opaque_stream(args[0]) if args else self._current(frame, state)
            state.records[receiver.key] = (stream, now)
            state.unrecorded = state.unrecorded - {receiver.key}
            self._note_record(receiver.key, stream)
            return UNKNOWN, state
        if method == "record" and isinstance(receiver, StreamV) and not args:
            method = "record_event"  # cupy: ``stream.record()`` returns an event recorded on it
        if method == "record_event" and isinstance(receiver, StreamV):
            event = args[0] if args and isinstance(args[0], EventV) else None
            event = event or EventV(_site(frame, call), f"{receiver.label}.record_event()")
            state.records[event.key] = (receiver, now)
            state.unrecorded = state.unrecorded - {event.key}
            self._note_record(event.key, receiver)
            return event, state
        if method == "synchronize":
            target = receiver
            device_wide = target is None or isinstance(target, (ExternalV, ModuleV, Unknown))
            if device_wide or (isinstance(target, StreamV) and target.current_of == MAIN_THREAD):
                state.synced = now
            elif isinstance(target, EventV):
                record = state.records.get(target.key)
                if record is not None and record[0] is not None and record[0].current_of == MAIN_THREAD:
                    state.synced = record[1]
            elif isinstance(target, StreamV) and target.key in state.barriers:
                # A stream ordered behind the producer: waiting for it waits for the producer's
                # work up to that barrier too.
                ordered = state.barriers[target.key]
                state.synced = ordered if state.synced is None else max(state.synced, ordered)
            self._host_waited(target, state)
            return UNKNOWN, state
        if (
            isinstance(call.func, ir.Attr)
            and method in HOST_COMPUTE_METHODS
            and receiver is not None
            and memory_of(receiver) is Memory.HOST
        ):
            self._host_read(receiver, call.func.base, f"`.{method}()`", call, frame, state)
        if isinstance(call.func, ir.Attr) and receiver is not None and method in HOST_READ_METHODS:
            self._host_read(receiver, call.func.base, f"`.{method}()`", call, frame, state)
            if method in ("item", "tolist"):
                memory = memory_of(receiver)
                if memory is Memory.DEVICE:
                    self._blocking_read(frame, state)
                elif memory is not Memory.HOST:
                    self._maybe_blocking_read(f"`.{method}()` at line {call.span.line}", frame, state)
        if method in HOST_READ_ARGUMENT_METHODS and args:
            self._host_read(args[0], call.args[0] if call.args else None, f"`{method}()`", call, frame, state)
        if method in ("put", "put_nowait") and isinstance(receiver, QueueV) and args:
            step = FlowStep(frame.module.path, call.span.line, call.span.column, f"put on {receiver.label}")
            self._handoffs_reached += 1
            if self._reporting or not self._puts.get(receiver.key):
                self._puts.setdefault(receiver.key, []).append(
                    _Put(args[0], state.copy(), (*frame.flow, step))
                )
            return UNKNOWN, state
        if method in ("get", "get_nowait") and isinstance(receiver, QueueV):
            return QueueGetV(receiver), state
        handed = _executor_job(method, receiver, args)
        if handed is not None:
            # ``pool.submit(fn, *args)``, ``pool.map(fn, items)``, ``loop.run_in_executor(pool, fn,
            # *args)``: fn runs on a worker thread, whose current stream is not the producer.
            target, arguments = handed
            step = FlowStep(frame.module.path, call.span.line, call.span.column, f"hands {method} a job")
            self._threads.append(
                _ThreadStart(target, arguments, state.copy(), (*frame.flow, step), method, self._fallback)
            )
            return UNKNOWN, state
        if (
            method in ARRAY_METHOD_COPIES
            and receiver is not None
            and isinstance(call.func, ir.Attr)
            # ``set`` is a common name: a copy only into device memory or with a stream.
            and (method != "set" or (args and ("stream" in kwargs or memory_of(receiver) is Memory.DEVICE)))
            and not isinstance(receiver, (ObjectV, ClassV, ModuleV, ExternalV, QueueV))
        ):
            return self._array_method_copy(call, method, receiver, args, kwargs, frame, state)
        if method == "copy_" and receiver is not None and args and isinstance(call.func, ir.Attr):
            held = call.func.base
            state = self._write(held, frame, state, call.span)
            non_blocking = args[1] if len(args) > 1 else kwargs.get("non_blocking")
            return receiver, self._copy(
                call,
                "Tensor.copy_",
                frame,
                state,
                self._stream(frame, state),
                args[0],
                receiver,
                _root_spelling(call.args[0]),
                None,
                written=_written(self._identity(receiver, held, frame), held),
                asynchronous=_may_be_true(non_blocking),
            )
        if (
            method == "cpu"
            and receiver is not None
            and not args
            and not isinstance(receiver, (ObjectV, ExternalV))
        ):
            state = self._copy(
                call,
                "Tensor.cpu",
                frame,
                state,
                self._stream(frame, state),
                receiver,
                TensorV(Memory.HOST),
                _root_spelling(call.func.base) if isinstance(call.func, ir.Attr) else "",
                None,
                asynchronous=False,
                implied_destination=True,
            )
            return TensorV(Memory.HOST), state
        if method == "to" and receiver is not None and not isinstance(receiver, (ObjectV, ExternalV)):
            device = args[0] if args else kwargs.get("device")
            moved_to = _device_memory(device) if device is not None else None
            if isinstance(device, UnionV) and "dtype" not in kwargs:
                # ``t.to(x.device)`` where x may be one of several: one place if they agree.
                places = {_device_memory(option) for option in device.options}
                if len(places) != 1 or None in places:
                    return TensorV(Memory.UNKNOWN), state
                moved_to = places.pop()
            if moved_to is Memory.HOST:
                result = TensorV(Memory.HOST, _buffer_site("copy", frame, call))
                state = self._copy(
                    call,
                    "Tensor.to",
                    frame,
                    state,
                    self._stream(frame, state),
                    receiver,
                    result,
                    _root_spelling(call.func.base) if isinstance(call.func, ir.Attr) else "",
                    None,
                    written=(result.key, f"the result of {_spelling(call.func)}()"),
                    asynchronous=_may_be_true(kwargs.get("non_blocking")),
                    # ``.to("cpu", non_blocking=True)`` asks for an asynchronous copy to the host:
                    # the code chose that side. Without it, the form only names where data ends.
                    implied_destination=_truth(kwargs.get("non_blocking", UNKNOWN)) is not True,
                )
                return result, state
            if moved_to is Memory.DEVICE:
                return TensorV(Memory.DEVICE), state
            if isinstance(device, Unknown) and "dtype" not in kwargs:
                return TensorV(Memory.UNKNOWN), state  # moved to a device the code does not show
            return receiver, state
        if method in ("cuda",) and isinstance(receiver, (TensorV, Unknown)):
            return TensorV(Memory.DEVICE), state
        if method in NEW_ALLOCATORS and isinstance(receiver, TensorV):
            device = kwargs.get("device")
            placed = _device_memory(device) if device is not None else receiver.memory
            site = _buffer_site("alloc", frame, call)
            return self._fresh_buffer(placed or Memory.UNKNOWN, site, method), state
        if method == "pin_memory" and args and not isinstance(receiver, TensorV):
            # ``get_accelerator().pin_memory(t)``: the tensor is the argument.
            pinned = args[0]
            return TensorV(Memory.HOST, pinned.key if isinstance(pinned, TensorV) else ""), state
        if method in ("pin_memory", "numpy") and isinstance(receiver, (TensorV, Unknown)):
            return TensorV(Memory.HOST, receiver.key if isinstance(receiver, TensorV) else ""), state
        if (
            method in ("get", "pop", "setdefault")
            and args
            and "stream" not in kwargs
            and isinstance(receiver, (SeqV, UnionV, RecordV))
        ):
            # ``cache.get(key)``: what was stored there, as ``cache[key]`` would give it.
            stored = _index(receiver, args[0])
            return (join([stored, args[1]]) if method == "setdefault" and len(args) > 1 else stored), state
        given_stream = kwargs.get("stream")
        if (
            method in ("get", "asnumpy")
            and isinstance(given_stream, (StreamV, Unknown))
            and not (isinstance(given_stream, Unknown) and not given_stream.spelling)
        ):
            # cupy: ``array.get(stream=s)``, into ``out=`` if given; ``requests.get(url,
            # stream=True)`` passes a constant.
            out, out_expr = kwargs.get("out"), dict(call.kwargs).get("out")
            fetched: Value
            if out is not None and out_expr is not None and memory_of(out) is not None:
                fetched, written = out, _written(self._identity(out, out_expr, frame), out_expr)
            else:
                made = TensorV(Memory.HOST, _buffer_site("copy", frame, call))
                fetched, written = made, (made.key, f"the result of {_spelling(call.func)}()")
            source = receiver if receiver is not None and memory_of(receiver) is not None else None
            return fetched, self._copy(
                call,
                method,
                frame,
                state,
                _opaque_stream(given_stream),
                source or TensorV(Memory.DEVICE),
                fetched,
                _root_spelling(call.func.base) if isinstance(call.func, ir.Attr) else "",
                None,
                written=written,
                # cupy waits for the copy before returning unless ``blocking=False``.
                asynchronous=_truth(kwargs.get("blocking", ConstV(True, "True", "", None))) is False,
            )
        if method in ("append", "extend", "add", "insert") and isinstance(call.func, ir.Attr):
            holder = call.func.base
            if isinstance(holder, ir.Name) and args and not isinstance(frame.env.get(holder.id), Unknown):
                current = frame.env.get(holder.id, UNKNOWN)
                frame.env[holder.id] = join([current, taint([args[-1]]) if memory_of(args[-1]) else current])
            return UNKNOWN, state
        if (
            method.endswith("_")
            and not method.startswith("_")
            and isinstance(call.func, ir.Attr)
            and not isinstance(receiver, (ObjectV, ExternalV, ModuleV, ClassV))
        ):
            if frame.thread == MAIN_THREAD and self._stream(frame, state) is None:
                state.launched = self._clock  # an in-place kernel on the producer's stream
            return receiver or UNKNOWN, self._write(call.func.base, frame, state, call.span)
        if method in ("values", "items") and not args and isinstance(receiver, SeqV):
            # A dict the code filled (``{n: Stream() for n in names}``): its values, keyed by
            # what the code does not spell.
            if method == "values":
                return receiver, state
            pairs = SeqV((SeqV((UNKNOWN, _element(receiver))),))
            return (pairs if receiver.items else join([SeqV(()), pairs])), state
        if method in ("values", "items") and not args and isinstance(receiver, (TensorV, UnionV)):
            # A dict of buffers (a container is read as what it holds): its values, or
            # (key, value) pairs.
            element = _index(receiver, UNKNOWN)
            return (SeqV((element,)) if method == "values" else SeqV((SeqV((UNKNOWN, element)),))), state
        if method == "data_ptr" and isinstance(receiver, Unknown):
            return TensorV(Memory.UNKNOWN), state  # a pointer to memory the code does not place
        if method in ("values", "keys", "items") and not args and isinstance(receiver, RecordV):
            keys = [ConstV(key, repr(key), frame.module.path, None) for key, _ in receiver.fields]
            values = [value for _, value in receiver.fields]
            if method == "items":
                return SeqV(tuple(SeqV(pair) for pair in zip(keys, values, strict=True))), state
            return SeqV(tuple(values if method == "values" else keys)), state
        if method == "data_ptr" and isinstance(receiver, TensorV):
            return replace(receiver, address=True), state
        if method in SAME_MEMORY_METHODS and isinstance(receiver, (TensorV, SeqV, UnionV)):
            return view_of(receiver), state
        if isinstance(receiver, TensorV) and receiver.memory is not Memory.UNKNOWN:
            # Any other tensor method (``x.norm()``, ``x.sum()``) computes where x lives.
            return TensorV(receiver.memory), state
        return None

    def _external(
        self,
        dotted: str,
        args: tuple[Value, ...],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: _Frame,
        state: _State,
    ) -> tuple[Value, _State]:
        last = dotted.rsplit(".", 1)[-1]
        if last in COPY_APIS:
            return self._copy_api(last, args, kwargs, call, frame, state)
        if last in HANDLE_WRAPPERS and len(args) == 1 and isinstance(args[0], (StreamV, EventV)):
            return args[0], state  # the same stream or event, as the driver's type
        if last == "create_stream":
            # cuda.core: ``device.create_stream()`` makes a stream; given one (a torch stream,
            # through its ``__cuda_stream__``) it wraps that same stream.
            if args and isinstance(args[0], StreamV):
                return args[0], state
            if not args:
                return StreamV(_stream_site(frame, call), _NEW_STREAM), state
        if last in ADDRESS_WRAPPERS and args and isinstance(args[0], TensorV):
            return args[0], state  # ``Buffer.from_handle(ptr, size)``: the memory at that address
        if last == "Stream" or (last == "stream" and not args and "numba" in dotted):
            # numba's ``cuda.stream()`` makes one
            return StreamV(_stream_site(frame, call), _NEW_STREAM), state
        if last in STREAM_CREATORS:
            # cuda-python: ``err, stream = cudart.cudaStreamCreate()``
            made = StreamV(_stream_site(frame, call), _NEW_STREAM)
            return SeqV((ConstV(0, "err", frame.module.path, None), made)), state
        if last in EVENT_CREATORS or (last == "event" and "numba" in dotted):
            site = _site(frame, call)
            event = EventV(site, f"event created at {site}")
            state.unrecorded = state.unrecorded | {site}
            return (
                SeqV((ConstV(0, "err", frame.module.path, None), event)) if last in EVENT_CREATORS else event
            ), state
        if last in EVENT_RECORDS or last in STREAM_WAITS or last in STREAM_SYNCS or last in EVENT_SYNCS:
            return UNKNOWN, self._function_barrier(last, args, call, frame, state)
        if last == "current_stream":
            # Inside ``with torch.cuda.stream(s):`` the current stream is s, not the producer.
            return self._current(frame, state), state
        if last == "default_stream":
            entered = [
                stream
                for stream in state.streams
                if not stream.current_of and not stream.key.startswith("opaque:")
            ]
            if entered:
                # Under a stream the project made, the producer's kernels ran there, unless it
                # is the copy stream itself (decided when the barrier is read).
                return StreamV(f"{_DEFAULT_UNDER}{entered[0].key}", "torch.cuda.default_stream()"), state
            return self._current(frame, state, explicit=True), state
        if last == "set_stream" and args:
            # ``torch.cuda.set_stream(s)`` replaces the current stream until it is set again
            # (a ``with`` around it restores what it entered with).
            chosen = _opaque_stream(args[0]) or self._current(frame, state, explicit=True)
            state.streams = (*state.streams[:-1], chosen)
            return UNKNOWN, state
        if last in STREAM_CONTEXTS and args:
            if isinstance(args[0], UnionV) and all(isinstance(o, StreamV) for o in args[0].options):
                return UnionV(tuple(ContextV(option) for option in args[0].options)), state  # type: ignore[arg-type]
            stream = _opaque_stream(args[0])
            return (ContextV(stream) if stream is not None else UNKNOWN), state
        if last == "Event":
            site = _site(frame, call)
            state.unrecorded = state.unrecorded | {site}
            return EventV(site, f"event created at {site}"), state
        if last in DEVICE_SYNCS:
            state.synced = self._clock
            state.completed(None)
            return UNKNOWN, state
        if last in HOST_READ_FUNCTIONS:
            for value, expr in zip(args, call.args, strict=False):
                self._host_read(value, expr, f"`{last}()`", call, frame, state)
            if last == "int" and len(args) == 1 and isinstance(args[0], TensorV) and args[0].address:
                return args[0], state  # ``int(dst[i])`` over a table of addresses: an address
        if last in QUEUES:
            site = _site(frame, call)
            owner = frame.env.get("self")
            # One queue per instance that makes it (a handler per direction, each its own).
            key = f"{site}@{owner.site}" if isinstance(owner, ObjectV) and owner.site else site
            return QueueV(key, f"the queue created at {site}"), state
        if last == "Thread":
            target = kwargs.get("target")
            arguments = kwargs.get("args")
            if target is not None:
                step = FlowStep(frame.module.path, call.span.line, call.span.column, "starts a thread")
                items = arguments.items if isinstance(arguments, SeqV) else ()
                self._threads.append(
                    _ThreadStart(target, items, state.copy(), (*frame.flow, step), dotted, self._fallback)
                )
            return ExternalV(f"{dotted}()"), state  # its ``start()`` is the library's
        if last == "arange" and dotted.startswith("numpy"):
            # Index values (``base + np.arange(n) * stride``), not memory a copy reads or writes.
            return UNKNOWN, state
        if last in ALLOCATORS or last in LIKE_ALLOCATORS or last in DATA_CONSTRUCTORS:
            site = _buffer_site("alloc", frame, call)
            if dotted.startswith(DEVICE_MODULES) and not dotted.startswith("cupyx"):
                return self._fresh_buffer(
                    Memory.DEVICE, site, last
                ), state  # cupy's arrays live on the device
            like = last in LIKE_ALLOCATORS or last in DATA_CONSTRUCTORS
            return self._fresh_buffer(_allocation_memory(args, kwargs, like=like), site, last), state
        if last in PINNED_ALLOCATORS:
            return TensorV(Memory.HOST, _buffer_site("alloc", frame, call)), state
        if last in DEVICE_ALLOCATORS and dotted.startswith(DEVICE_MODULES):
            return self._fresh_buffer(Memory.DEVICE, _buffer_site("alloc", frame, call), last), state
        if last in DEVICE_NAMES:
            return ConstV("cuda", dotted, frame.module.path, None), state
        if args and (
            last == "int"
            or (dotted.startswith("ctypes.c_") and "." not in dotted[7:])
            or (dotted.startswith("numpy.") and last in NUMPY_SCALARS)
        ):
            # ``int(x)`` and a ctypes scalar made from x (``ctypes.c_void_p(s.cuda_stream)``)
            # carry x's meaning: the same stream handle, pointer or order value.
            return args[0], state
        if last == "device" and args and isinstance(args[0], ConstV):
            return args[0], state  # ``torch.device("cpu")`` places memory as "cpu" does
        if (
            last == "getattr"
            and len(args) >= 2
            and isinstance(args[1], ConstV)
            and args[1].value in COPY_APIS
        ):
            return CopyApiV(str(args[1].value)), state
        if last == "zip":
            return ZipV(args), state
        if dotted == "range" and len(args) == 1 and isinstance(args[0], ConstV):
            count = args[0].value
            if isinstance(count, int) and not isinstance(count, bool) and 0 < count <= _SPELT_RANGE:
                path = frame.module.path
                return SeqV(tuple(ConstV(i, str(i), path, None) for i in range(count))), state
        if last == "dict" and not args:
            return RecordV("dict", tuple(kwargs.items())), state
        if last in ("list", "tuple") and args:
            return args[0], state
        if last == "partial" and args:
            if isinstance(args[0], FuncV):
                return replace(args[0], partial=(*args[0].partial, *args[1:])), state
            return args[0], state
        if last == "cuGetProcAddress" and args and isinstance(args[0], ConstV):
            name = args[0].value
            text = name.decode() if isinstance(name, bytes) else str(name)
            if text in COPY_APIS:
                return SeqV((UNKNOWN, CopyApiV(text), UNKNOWN)), state
        result = _opaque_call(last, args, kwargs)
        # What an unmodelled library call returns is still that library's object: its methods
        # are read by name as the device modules' are (``get_accelerator().stream(s)``,
        # ``torch.get_device_module("cuda").Stream()``).
        return (ExternalV(f"{dotted}()") if result == UNKNOWN else result), state

    # ------------------------------------------------------------------- copies
    def _copy_api(
        self,
        api: str,
        args: tuple[Value, ...] | list[Value],
        kwargs: dict[str, Value],
        call: ir.Call,
        frame: _Frame,
        state: _State,
    ) -> tuple[Value, _State]:
        args = list(args)
        layout = RAW_COPIES[api]
        stream: Value | None = self._stream(frame, state)
        destination = args[layout.destination] if len(args) > layout.destination else UNKNOWN
        source = args[layout.source] if len(args) > layout.source else UNKNOWN
        explicit = next((kwargs[k] for k in layout.stream_keywords if k in kwargs), None)
        if explicit is not None:
            stream = explicit
        elif layout.stream is not None and len(args) >= max(layout.stream_needs, layout.stream + 1):
            stream = args[layout.stream]
        kind = _kind(args[layout.kind]) if layout.kind is not None and len(args) > layout.kind else None
        # The form or the kind says where each side lives; the buffers stay what they are.
        sides = (
            layout.memory
            if layout.memory is not None
            else KIND_MEMORY.get(kind)
            if kind is not None
            else None
        )
        if sides is not None:
            source, destination = (
                TensorV(memory, value.key if isinstance(value, TensorV) else "")
                for memory, value in zip(sides, (source, destination), strict=True)
            )
        order = _order_in(list(kwargs.items()))
        if layout.ordered:  # in attributes passed positionally or by another keyword
            order = order or _order_in([("", a) for a in (*args, *kwargs.values())])
        flag = kwargs.get("is_src_access_order_any")
        if flag is not None and _truth(flag) is True:
            where = flag if isinstance(flag, ConstV) else None
            order = SourceOrder(
                ORDER_ANY,
                where.spelling if where else "True",
                where.span if where and where.span else call.span,
                "passed as is_src_access_order_any=True",
                where.path if where else frame.module.path,
            )
        stream_value = stream if stream is None or isinstance(stream, StreamV) else _opaque_stream(stream)
        spelled = (
            call.args[layout.destination]
            if len(call.args) > layout.destination and not call.star_args
            else None
        )
        written = _written(self._identity(destination, spelled, frame), spelled) if spelled else ("", "")
        return UNKNOWN, self._copy(
            call, api, frame, state, stream_value, source, destination, "", order, written=written
        )

    def _copy(
        self,
        call: ir.Call,
        form: str,
        frame: _Frame,
        state: _State,
        stream: StreamV | None,
        source: Value,
        destination: Value,
        source_key: str,
        order: SourceOrder | None,
        written: tuple[str, str] = ("", ""),
        asynchronous: bool = True,
        implied_destination: bool = False,
    ) -> _State:
        """A copy launch; ``written`` names the destination buffer (identity, spelling) for host reads."""
        copy_stream = stream.key if stream is not None else f"current@{frame.thread}"
        self._copies_reached += 1
        if stream is not None:
            state.issued[stream.key] = self._clock
            self._copy_streams.add(stream.key)
        if not asynchronous and stream is None:
            state.completed(copy_stream)  # a blocking copy waits for the current stream
            sides = {memory_of(source), memory_of(destination)}
            if sides == {Memory.DEVICE, Memory.HOST}:
                self._blocking_read(frame, state)  # GPU to host, or host to GPU from pageable memory
            elif Memory.DEVICE in sides and sides != {Memory.DEVICE}:
                # The other side is not placed: from another GPU buffer the copy blocks nothing.
                self._maybe_blocking_read(f"the blocking {form} at line {call.span.line}", frame, state)
        target_memory = memory_of(destination)
        if (
            asynchronous
            and written[0]
            and (target_memory is Memory.HOST or target_memory is None)
            and memory_of(source) is not Memory.HOST
            and (target_memory is Memory.HOST or memory_of(source) is Memory.DEVICE)
        ):
            state.pending[written[0]] = PendingCopy(
                frame.module.path,
                call.span.line,
                call.span.column,
                form,
                written[1],
                copy_stream,
                self._clock,
            )
        if not self._reporting:
            return state
        if self._fallback and (stream is None or stream.key.startswith("opaque:")):
            return state  # reached only as a fallback root: its stream is not known here
        if stream is not None and stream.label in self._taught.producer_streams:
            stream = None  # issued on a configured producer stream: no barrier needed
        key = stream.key if stream is not None else ""
        barrier = state.ordered_since(key) if stream is not None else None
        buffer_key = source.key if isinstance(source, TensorV) else ""
        if isinstance(source, Unknown) and source.spelling:
            buffer_key = f"{_UNPLACED}{source.spelling}"
        writes = [
            found for key in (source_key, buffer_key, _ANY_BUFFER) if key and (found := state.writes.get(key))
        ]
        write = max(writes) if writes else None
        if write is not None and (write[2] == copy_stream or write[2] in self._copy_streams):
            # Written on the copy's own stream (stream order covers it), or by another copy
            # stream: not the producer this rule orders against.
            write = None
        stale = barrier is not None and write is not None and write[0] > barrier
        # A load's destination the producer used (wrote, so also read) after the barrier: the
        # barrier does not cover those kernels, and the load may land while they run.
        used_at = [
            found
            for key in (destination.key if isinstance(destination, TensorV) else "", _ANY_BUFFER)
            if key and (found := state.writes.get(key))
        ]
        used = max(used_at) if used_at else None
        if used is not None and (used[2] == copy_stream or used[2] in self._copy_streams):
            used = None
        used_after_barrier = None
        if barrier is not None and used is not None and used[0] > barrier:
            used_after_barrier = used[1]

        current = stream is None or stream.current_of == MAIN_THREAD
        self.runs.append(
            CopyRun(
                path=frame.module.path,
                span=call.span,
                lines=call.lines,
                form=form,
                stream=None if current else stream,
                source_memory=memory_of(source) or Memory.UNKNOWN,
                destination_memory=memory_of(destination) or Memory.UNKNOWN,
                order=order,
                ordered=barrier is not None and not stale,
                gap=state.gaps.get(key, ()) if barrier is None else (),
                stale_write_line=write[1] if stale and write is not None else None,
                destination_used_line=used_after_barrier,
                host_synced=state.synced is not None and (write is None or write[0] < state.synced),
                flow=frame.flow,
                thread=frame.thread,
                resolved_stream=stream is not None and not stream.key.startswith("opaque:"),
                barrier_site=self._barrier_site(stream, frame),
                ordered_by_earlier_call=key in state.carried,
                # Allocated by this entry point, and no kernel has used it since.
                fresh_destination=isinstance(destination, TensorV)
                and destination.key in self._fresh
                and used is None,
                unwritten_source=isinstance(source, TensorV)
                and source.key in self._unwritten
                and write is None,
                implied_destination=implied_destination,
                blocking=not asynchronous,
                destination_from_caller=isinstance(destination, Unknown) and destination.from_caller,
            )
        )
        return state

    def _array_method_copy(
        self,
        call: ir.Call,
        method: str,
        receiver: Value,
        args: list[Value],
        kwargs: dict[str, Value],
        frame: _Frame,
        state: _State,
    ) -> tuple[Value, _State]:
        """numba's ``d.copy_to_host(h, stream=s)`` / ``d.copy_to_device(h, stream=s)``, cupy's
        ``d.set(h, stream=s)``: the receiver is the device array."""
        given = kwargs.get("stream", args[1] if len(args) > 1 else None)
        stream = _opaque_stream(given) if given is not None else None
        stream = stream if stream is not None else self._stream(frame, state)
        device = receiver if memory_of(receiver) is not None else TensorV(Memory.DEVICE)
        spelled = call.func.base if isinstance(call.func, ir.Attr) else None
        if ARRAY_METHOD_COPIES[method] == "to host":
            host = args[0] if args else TensorV(Memory.HOST, _buffer_site("copy", frame, call))
            host = host if memory_of(host) is not None else TensorV(Memory.HOST)
            target = call.args[0] if call.args else None
            written = _written(self._identity(host, target, frame), target) if target else ("", "")
            source_key = _root_spelling(spelled) if spelled is not None else ""
            return host, self._copy(
                call, method, frame, state, stream, device, host, source_key, None, written=written
            )
        source = args[0] if args else UNKNOWN
        source = source if memory_of(source) is not None else TensorV(Memory.HOST)
        return receiver, self._copy(call, method, frame, state, stream, source, device, "", None)

    def _schedule_task(self, coroutine: ir.Expr, call: ir.Call, frame: _Frame, state: _State) -> _State:
        """``asyncio.create_task(obj.run())``: the coroutine runs later on this thread, in the
        state the task was made in, after what the current entry point does."""
        assert isinstance(coroutine, ir.Call)
        target, state = self._eval(coroutine.func, frame, state)
        arguments: list[Value] = []
        for arg in coroutine.args:
            value, state = self._eval(arg, frame, state)
            arguments.append(value)
        step = FlowStep(frame.module.path, call.span.line, call.span.column, "schedules a task")
        self._threads.append(
            _ThreadStart(
                target, tuple(arguments), state.copy(), (*frame.flow, step), "task", self._fallback, True
            )
        )
        return state

    def _fresh_buffer(self, memory: Memory, site: str, allocator: str) -> TensorV:
        """A buffer this entry point allocates: no kernel has read it before its first copy.
        ``empty`` and its kin leave it unwritten; the rest fill it on the current stream."""
        self._fresh.add(site)
        if allocator.startswith(("empty", "new_empty")) or allocator in DEVICE_ALLOCATORS:
            self._unwritten.add(site)
        return TensorV(memory, site)

    def _coroutine_call(self, expr: ir.Expr, frame: _Frame, state: _State) -> bool:
        """Whether an expression calls a project ``async def``."""
        if not isinstance(expr, ir.Call) or not isinstance(expr.func, (ir.Name, ir.Attr)):
            return False
        called = expr.func.id if isinstance(expr.func, ir.Name) else expr.func.name
        if called not in self._async_names:
            return False  # the common case, decided without evaluating the callee
        callee, _ = self._eval(expr.func, frame, state.copy())
        if not isinstance(callee, FuncV):
            return False
        function = self._functions.get((callee.module, callee.qualname))
        return function is not None and function.is_async

    def _function_barrier(
        self, name: str, args: tuple[Value, ...], call: ir.Call, frame: _Frame, state: _State
    ) -> _State:
        """cuda-python's ``cudaEventRecord(e, s)``, ``cudaStreamWaitEvent(s, e, 0)``,
        ``cudaStreamSynchronize(s)``, ``cudaEventSynchronize(e)``, read as their methods are."""

        def event(value: Value) -> Value:
            if isinstance(value, Unknown) and value.spelling:
                return EventV(f"opaque:{value.spelling}", value.spelling)
            return value

        def stream(value: Value) -> Value:
            return _opaque_stream(value) or self._current(frame, state)

        at = list(args)
        if name in EVENT_RECORDS and len(at) >= 1:
            event_at, stream_at = EVENT_RECORDS[name]
            given = [stream(at[stream_at])] if len(at) > stream_at else []
            found = self._special(call, "record", event(at[event_at]), UNKNOWN, given, {}, frame, state)
        elif name in STREAM_WAITS and len(at) >= 2:
            stream_at, event_at = STREAM_WAITS[name]
            waiter = stream(at[stream_at])
            found = self._special(
                call, "wait_event", waiter, UNKNOWN, [event(at[event_at])], {}, frame, state
            )
        elif name in STREAM_SYNCS and at:
            found = self._special(call, "synchronize", stream(at[0]), UNKNOWN, [], {}, frame, state)
        elif name in EVENT_SYNCS and at:
            found = self._special(call, "synchronize", event(at[0]), UNKNOWN, [], {}, frame, state)
        else:
            found = None
        return found[1] if found is not None else state

    def _blocking_read(self, frame: _Frame, state: _State) -> None:
        """A copy or read that blocks the host on the current stream: on the requesting thread
        it waits for the producer's work so far, which orders every later launch behind it."""
        if frame.thread == MAIN_THREAD and self._stream(frame, state) is None:
            state.synced = self._clock
            state.completed(f"current@{frame.thread}")

    def _maybe_blocking_read(self, what: str, frame: _Frame, state: _State) -> None:
        """A read that blocks the host if its tensor is on the GPU, which the code does not
        show: copies on the current stream before it may have completed."""
        if frame.thread != MAIN_THREAD or self._stream(frame, state) is not None:
            return
        current = f"current@{frame.thread}"
        state.pending = {
            key: copy if copy.maybe_waited or copy.stream_key != current else replace(copy, maybe_waited=what)
            for key, copy in state.pending.items()
        }

    def _barrier_site(
        self, stream: StreamV | None, frame: _Frame
    ) -> tuple[str, Span, str, tuple[str, str]] | None:
        entered = stream.entered_at if stream is not None else None
        if entered is None or frame.thread != MAIN_THREAD:
            return None
        path, span, spelled, api, stack = entered
        if not spelled or path != frame.module.path or stack != frame.stack:
            return None
        if stack and stack[-1].rsplit(".", 1)[-1] in self._passed:
            return None  # the function is passed as a value: it may run on another thread
        return path, span, spelled, api

    # ----------------------------------------------------------------- streams
    def _current(self, frame: _Frame, state: _State, explicit: bool = False) -> StreamV:
        if not explicit and state.streams:
            return state.streams[-1]
        return StreamV(f"current@{frame.thread}", "torch.cuda.current_stream()", frame.thread)

    def _stream(self, frame: _Frame, state: _State) -> StreamV | None:
        if state.streams and state.streams[-1].current_of != MAIN_THREAD:
            return state.streams[-1]
        if frame.thread != MAIN_THREAD and not state.streams:
            return self._current(frame, state)
        return None

    def _is_producer(self, producer: Value, waiter: StreamV) -> bool:
        if isinstance(producer, Unknown) and producer.spelling:
            producer = _opaque_stream(producer) or producer  # ``s.wait_stream(s)`` orders nothing
        if isinstance(producer, StreamV):
            if producer.key == waiter.key:
                return False
            if producer.label in self._taught.producer_streams:
                return True
            if producer.current_of:
                return producer.current_of == MAIN_THREAD
            if producer.key.startswith("opaque:"):
                return True  # a stream we cannot tell apart from the producer
            if producer.key.startswith(_DEFAULT_UNDER):
                under = producer.key.removeprefix(_DEFAULT_UNDER)
                return under == waiter.key or under in self._copy_streams
            # A stream the project made that no copy runs on is a compute stream: kernels run
            # there (``with compute:`` in cupy, ``kernel[grid, block, compute]`` in numba).
            return producer.key not in self._copy_streams
        return True

    def _note_record(self, event: str, stream: Value | None) -> None:
        on = stream.key if isinstance(stream, StreamV) else ""  # "": a stream not resolved here
        self._recorded_on.setdefault(event, set()).add(on)

    def _recorded_only_on_copy_streams(self, event: str, waiter: StreamV) -> bool:
        """Every record of the event the analysis saw is on a stream copies run on (another
        transfer's completion), none on the producer: waiting on it orders behind no kernel."""
        streams = self._recorded_on.get(event, set())
        return bool(streams) and all(
            on and on != waiter.key and on in self._copy_streams and not on.startswith("current@")
            for on in streams
        )

    def _wait_event(self, waiter: StreamV, event: Value, state: _State) -> _State:
        if (
            isinstance(event, EventV)
            and not event.key.startswith("opaque:")
            and event.key not in self._recorded_on
        ):
            return state  # an event created here and recorded nowhere: waiting on it orders nothing
        if isinstance(event, EventV) and event.key in state.unrecorded:
            return state  # made on this path and not recorded yet (recorded after a hand-off)
        if isinstance(event, EventV):
            recorded_on, time = state.records.get(event.key, (None, _BEFORE_PATH))
            if (
                event.key not in state.records and not self._recorded_only_on_copy_streams(event.key, waiter)
            ) or (recorded_on is not None and self._is_producer(recorded_on, waiter)):
                state.barriers[waiter.key] = max(state.barriers.get(waiter.key, time), time)
                state.gaps.pop(waiter.key, None)
        elif not isinstance(event, ConstV):
            state.barriers[waiter.key] = max(state.barriers.get(waiter.key, _BEFORE_PATH), _BEFORE_PATH)
            state.gaps.pop(waiter.key, None)
        return state

    def _step(self, frame: _Frame, span: Span, message: str) -> FlowStep:
        return FlowStep(frame.module.path, span.line, span.column, message)


def _direct_calls(statements: Sequence[ir.Stmt]) -> tuple[set[str], set[str]]:
    """Names called plainly (``helper(...)``) and methods called on ``self``."""
    plain: set[str] = set()
    on_self: set[str] = set()

    def visit(value: object) -> None:
        if isinstance(value, ir.Call):
            func = value.func
            if isinstance(func, ir.Name):
                plain.add(func.id)
            elif isinstance(func, ir.Attr) and isinstance(func.base, ir.Name) and func.base.id == "self":
                on_self.add(func.name)
        if isinstance(value, (tuple, list)):
            for item in value:
                visit(item)
        elif hasattr(value, "__dataclass_fields__") and not isinstance(value, ir.Function):
            for name in value.__dataclass_fields__:
                visit(getattr(value, name))

    visit(tuple(statements))  # the walk descends into nested blocks itself
    return plain, on_self


def _names_used(statements: Sequence[ir.Stmt]) -> tuple[set[str], set[str], set[str]]:
    """(names called, every name, attribute, keyword and string mentioned, names passed as
    call arguments) in statements."""
    called: set[str] = set()
    mentioned: set[str] = set()
    passed: set[str] = set()

    def expr(e: ir.Expr | None) -> None:
        if e is None:
            return
        if isinstance(e, ir.Name):
            mentioned.add(e.id)
        elif isinstance(e, ir.Attr):
            mentioned.add(e.name)
            expr(e.base)
        elif isinstance(e, ir.Call):
            if isinstance(e.func, (ir.Name, ir.Attr)):
                called.add(e.func.id if isinstance(e.func, ir.Name) else e.func.name)
            if isinstance(e.func, ir.Attr) and _in_place(e.func.name):
                mentioned.add(_TENSOR_WRITE)
            if isinstance(e.func, ir.Index):
                mentioned.add(_TENSOR_WRITE)  # a kernel launch, ``kernel[grid, block, stream](buf)``
            expr(e.func)
            for a in (*e.args, *(value for _, value in e.kwargs)):
                if isinstance(a, (ir.Name, ir.Attr)):
                    passed.add(a.id if isinstance(a, ir.Name) else a.name)
            for a in e.args:
                expr(a)
            for key, a in e.kwargs:
                mentioned.add(key)
                if key == "target" and isinstance(a, (ir.Name, ir.Attr)):
                    called.add(a.id if isinstance(a, ir.Name) else a.name)
                expr(a)
        elif isinstance(e, ir.Const) and isinstance(e.value, (str, bytes)):
            text = e.value.decode("latin-1") if isinstance(e.value, bytes) else e.value
            if text in COPY_APIS:  # ``cuGetProcAddress(b"cuMemcpyBatchAsync")``, ``getattr(lib, ...)``
                mentioned.add(text)
        elif isinstance(e, ir.Seq):
            for item in e.items:
                expr(item)
        elif isinstance(e, ir.Index):
            expr(e.base)
            expr(e.index)
        elif isinstance(e, ir.Cond):
            expr(e.then)
            expr(e.test)
            expr(e.orelse)
        elif isinstance(e, (ir.Not, ir.IsNone)):
            expr(e.operand)
        elif isinstance(e, ir.Equals):
            expr(e.left)
            expr(e.right)
        elif isinstance(e, ir.Comp):
            expr(e.element)
            expr(e.target)
            expr(e.iterable)
        elif isinstance(e, ir.Opaque):
            for part in e.parts:
                expr(part)
        elif isinstance(e, ir.Starred):
            expr(e.value)
        elif isinstance(e, ir.Lambda):
            expr(e.body)

    for statement in _nested(statements):
        if isinstance(statement, (ir.Assign, ir.AugAssign)):
            targets = statement.targets if isinstance(statement, ir.Assign) else (statement.target,)
            for target in targets:
                expr(target)
                if isinstance(target, ir.Index) and isinstance(target.index, (ir.Opaque, ir.Seq)):
                    mentioned.add(_TENSOR_WRITE)  # ``buf[a:b] = x``, ``buf[i, :] += x``
            expr(statement.value)
        elif isinstance(statement, (ir.Eval, ir.Return, ir.Yield)):
            expr(statement.value)
        elif isinstance(statement, ir.If):
            expr(statement.test)
        elif isinstance(statement, ir.Loop):
            expr(statement.target)
            expr(statement.iter)
        elif isinstance(statement, ir.With):
            for item, name in statement.items:
                expr(item)
                expr(name)
    return called, mentioned, passed


# Names of the host reading a tensor's memory: a function that names one may read a buffer an
# unfinished copy writes.
_HOST_READS = HOST_READ_METHODS | {"numpy"}

# Mentioned by a function that writes into a tensor (a slice assignment, an in-place method):
# its callers reach a producer's write.
_TENSOR_WRITE = "<tensor write>"


def _opens_paths(value: Value, depth: int = 0) -> bool:
    """Whether code that read a field without this value may reach a copy or a hand-off with
    it: a call resolves through it into project code, a copy entry point or a queue, or a
    branch turns on it. Tensors, streams, events and counts change what a reached copy
    reports, not whether it is reached."""
    if isinstance(
        value, (ObjectV, FuncV, ClassV, LambdaV, QueueV, QueueGetV, ModuleV, CopyApiV, GeneratorContextV)
    ):
        return True
    if isinstance(value, ConstV):
        return isinstance(value.value, bool)
    if isinstance(value, ExternalV):
        last = value.dotted.removesuffix("()").rpartition(".")[2]
        return last in SEED_NAMES or last in WEAK_NAMES
    if depth > 3:
        return True
    if isinstance(value, (SeqV, ZipV)):
        return any(
            _opens_paths(item, depth + 1)
            for item in (value.items if isinstance(value, SeqV) else value.parts)
        )
    if isinstance(value, RecordV):
        return any(_opens_paths(item, depth + 1) for _, item in value.fields)
    if isinstance(value, UnionV):
        return any(_opens_paths(option, depth + 1) for option in value.options)
    return False


def _in_place(method: str) -> bool:
    """``fill_``, ``index_copy_``, ``add_``: torch's in-place methods end in one underscore."""
    return method.endswith("_") and not method.endswith("__") and len(method) > 1


def _fields_assigned(statements: Sequence[ir.Stmt], holder: str, items: bool = False) -> set[str]:
    """Names of ``holder.NAME = ...`` (or ``+=``) targets anywhere in the statements, and with
    ``items`` of ``holder.NAME[key] = ...`` too."""
    found: set[str] = set()

    def target(expr: ir.Expr) -> None:
        if items and isinstance(expr, ir.Index):
            target(expr.base)
        if isinstance(expr, ir.Attr) and isinstance(expr.base, ir.Name) and expr.base.id == holder:
            found.add(expr.name)
        elif isinstance(expr, ir.Seq):
            for item in expr.items:
                target(item)

    for statement in _nested(statements):
        if isinstance(statement, ir.Assign):
            for item in statement.targets:
                target(item)
        elif isinstance(statement, ir.AugAssign):
            target(statement.target)
    return found


def _forget_fields(env: dict[str, Value], target: ir.Expr) -> None:
    """Another object is bound to the names in ``target``: what was assigned to the fields of
    the one before (``item.data = ...``) is not this one's."""
    if isinstance(target, ir.Seq):
        for item in target.items:
            _forget_fields(env, item)
    elif isinstance(target, ir.Name):
        prefix = f"{target.id}."
        for stale in [name for name in env if name.startswith(prefix)]:
            del env[stale]


def _hands_out_a_field(function: ir.Function) -> bool:
    """A method that returns what its object holds (``return self.buffers[self.free.pop()]``):
    a pool handing out a pinned buffer is where the buffer a copy writes comes from."""
    if not function.class_name or not function.params:
        return False
    holder = function.params[0].name
    for statement in _nested(function.body):
        if isinstance(statement, ir.Return) and statement.value is not None:
            value = statement.value
            while isinstance(value, ir.Index):
                value = value.base
            if isinstance(value, ir.Attr) and isinstance(value.base, ir.Name) and value.base.id == holder:
                return True
    return False


def _nested(statements: Sequence[ir.Stmt]) -> Iterable[ir.Stmt]:
    """Every statement, and every statement in the blocks of each, in order."""
    for statement in statements:
        yield statement
        if isinstance(statement, (ir.If, ir.Loop)):
            yield from _nested(statement.body)
            yield from _nested(statement.orelse)
        elif isinstance(statement, ir.With):
            yield from _nested(statement.body)
        elif isinstance(statement, ir.Try):
            yield from _nested(statement.body)
            for handler in statement.handlers:
                yield from _nested(handler)
            yield from _nested(statement.orelse)
            yield from _nested(statement.final)


def _executor_job(
    method: str, receiver: Value | None, args: list[Value]
) -> tuple[Value, tuple[Value, ...]] | None:
    """The job and its arguments of a hand-off to a worker thread, if the call is one."""
    if isinstance(receiver, (ObjectV, ClassV)):
        return None  # the project's own ``submit``: followed as a call
    if method in ("submit", "to_thread") and args and isinstance(args[0], (FuncV, LambdaV)):
        return args[0], tuple(args[1:])
    if method == "map" and len(args) >= 2 and isinstance(args[0], (FuncV, LambdaV)):
        return args[0], tuple(_element(a) for a in args[1:])
    if method == "run_in_executor" and len(args) >= 2 and isinstance(args[1], (FuncV, LambdaV)):
        return args[1], tuple(args[2:])
    return None


def _opaque_call(name: str, args: Sequence[Value], kwargs: dict[str, Value]) -> Value:
    """The result of calling something the analysis does not model."""
    if len(args) == 1 and not kwargs and isinstance(args[0], (CopyApiV, RecordV)):
        # A ctypes prototype wrapping an entry point; byref/addressof/pointer of a struct.
        return args[0]
    if any(key in ORDER_KEYWORDS for key in kwargs):
        return RecordV(name, tuple(kwargs.items()))  # copy attributes built by keyword
    return taint([*args, *kwargs.values()])


def _taught(name: str, names: tuple[str, ...]) -> bool:
    return any(name == taught or name.endswith(f".{taught}") for taught in names)


def _callee_name(callee: Value) -> str:
    if isinstance(callee, FuncV):
        return f"{callee.module}.{callee.qualname}"
    if isinstance(callee, ExternalV):
        return callee.dotted
    if isinstance(callee, Unknown):
        return callee.spelling
    return ""


def _the(thread: str) -> str:
    """A thread's name with its article: "the requesting thread", "the thread running f"."""
    return thread if thread.startswith("the ") else f"the {thread}"


def _is_property(function: ir.Function) -> bool:
    return any(
        _spelling(d).rsplit(".", 1)[-1] in ("property", "cached_property") for d in function.decorators
    )


def _is_classmethod(function: ir.Function) -> bool:
    return any(_spelling(d) == "classmethod" for d in function.decorators)


def _is_static(function: ir.Function) -> bool:
    return any(_spelling(d) in ("staticmethod",) for d in function.decorators)


def _spelling(expr: ir.Expr) -> str:
    if isinstance(expr, ir.Name):
        return expr.id
    if isinstance(expr, ir.Attr):
        base = _spelling(expr.base)
        return f"{base}.{expr.name}" if base else expr.name
    if isinstance(expr, ir.Call):
        return f"{_spelling(expr.func)}()"
    return ""


def _has_none_branch(expr: ir.Expr) -> bool:
    return isinstance(expr, ir.Cond) and any(
        isinstance(branch, ir.Const) and branch.value is None for branch in (expr.then, expr.orelse)
    )


def _device_api(context: ir.Expr, imports: dict[str, str]) -> tuple[str, str]:
    """The device module a stream context is entered through (``torch.xpu`` of
    ``torch.xpu.stream(s)``, ``get_accelerator()``), when it can be spelt again without
    running code that takes arguments, and the module a barrier spelling it needs imported
    (``torch`` for ``on_stream(s)`` imported from ``torch.cuda``); "" otherwise."""
    if not isinstance(context, ir.Call):
        return "", ""
    if isinstance(context.func, ir.Name):
        dotted = imports.get(context.func.id, "")
        module_dotted, _, _ = dotted.rpartition(".")
        if not module_dotted:
            return "", ""
        top, _, rest = module_dotted.partition(".")
        local = next((name for name, bound in imports.items() if bound == top), "")
        return f"{local or top}.{rest}" if rest else (local or top), "" if local else top
    if not isinstance(context.func, ir.Attr):
        return "", ""
    module = context.func.base
    part: ir.Expr = module
    while True:
        if isinstance(part, ir.Attr):
            part = part.base
        elif isinstance(part, ir.Call) and not part.args and not part.kwargs:
            part = part.func
        else:
            break
    return (_spelling(module), "") if isinstance(part, ir.Name) else ("", "")


def _keyed_spelling(expr: ir.Index) -> str:
    """``state[key]`` as a local name, when container and key are plain names or constants."""
    base = _spelling(expr.base) if isinstance(expr.base, (ir.Name, ir.Attr)) else ""
    index = expr.index
    if isinstance(index, ir.Const) and isinstance(index.value, (str, int)):
        key = repr(index.value)
    else:
        key = _spelling(index) if isinstance(index, (ir.Name, ir.Attr)) else ""
    return f"{base}[{key}]" if base and key else ""


def _root_expr(expr: ir.Expr) -> ir.Expr:
    """The buffer a slice, view or element names (``t`` of ``t[i].view(...)``)."""
    while isinstance(expr, ir.Index) or (
        isinstance(expr, ir.Call) and isinstance(expr.func, ir.Attr) and expr.func.name in SAME_MEMORY_METHODS
    ):
        expr = expr.base if isinstance(expr, ir.Index) else expr.func.base  # type: ignore[union-attr]
    return expr


def _root_spelling(expr: ir.Expr) -> str:
    root = _root_expr(expr)
    return _spelling(root) if isinstance(root, (ir.Name, ir.Attr)) else ""


def _may_be_true(flag: Value | None) -> bool:
    """Whether a flag argument (``non_blocking``) may be true; left out, it is False."""
    return flag is not None and _truth(flag) is not False


def _written(identity: str, expr: ir.Expr) -> tuple[str, str]:
    """A copy destination: its identity, and how messages name it (a slice by its buffer, an
    address by what it is made from)."""
    if (
        isinstance(expr, ir.Call)
        and len(expr.args) == 1
        and _spelling(expr.func).rsplit(".", 1)[-1] in _ADDRESS_PASS_THROUGH
    ):
        return _written(identity, expr.args[0])
    if isinstance(expr, ir.Index):
        base = _spelling(expr.base)
        return identity, f"{base}[...]" if base else ""
    return identity, _spelling(expr)


# Calls that hand back the address they are given (``int(ptr)``, ``c_void_p(ptr)``).
_ADDRESS_PASS_THROUGH = frozenset({"int", "c_void_p"}) | NUMPY_SCALARS
# Methods a read reaches its buffer through (a view, the numpy array over a host tensor).
_VIEWS_OF_A_READ = SAME_MEMORY_METHODS | {"numpy"}


def _read_spelling(expr: ir.Expr) -> str:
    """How a message names the buffer a read reads: ``self.cache[...]`` for
    ``self.cache[first].flatten()[:16]``, through indexing and views."""
    indexed = False
    while True:
        if isinstance(expr, ir.Index):
            expr, indexed = expr.base, True
        elif (
            isinstance(expr, ir.Call)
            and isinstance(expr.func, ir.Attr)
            and expr.func.name in _VIEWS_OF_A_READ
        ):
            expr = expr.func.base
        else:
            break
    spelt = _spelling(expr) if isinstance(expr, (ir.Name, ir.Attr)) else ""
    return f"{spelt}[...]" if spelt and indexed else spelt


def _buffer_site(kind: str, frame: _Frame, call: ir.Call) -> str:
    """A buffer's identity: where it is made, and through which calls (a helper that makes
    buffers makes a different one for each caller)."""
    through = "".join(f"<{step.path}:{step.line}" for step in frame.flow)
    return f"{kind}@{_site(frame, call)}{through}"


def _site(frame: _Frame, call: ir.Call) -> str:
    """Where a call is: two streams or queues made on one line are two objects."""
    return f"{frame.module.path}:{call.span.line}:{call.span.column}"


def _stream_site(frame: _Frame, call: ir.Call) -> str:
    """Where a stream is made. In a module-level function (a factory helper) each call of
    it makes its own: the compute stream and the copy stream may both come from one
    ``create_stream()``."""
    site = _site(frame, call)
    function = frame.stack[-1] if frame.stack else ""
    if function and "." not in function and frame.flow:
        caller = frame.flow[-1]
        site += f"@{caller.path}:{caller.line}:{caller.column}"
    return site


# Stands for the copies an object's method calls left unfinished where an entry point's reads
# of fields are noted: another method that runs later may start one.
_LEFT_PENDING = "<copies left unfinished>"

# The key prefix of writes to a buffer the analysis cannot place, by how its value is spelt.
_UNPLACED = "unplaced:"

# The key prefix of the default stream taken while a project-made stream was current.
_DEFAULT_UNDER = "default-under:"


def _opaque_stream(value: Value) -> StreamV | None:
    if isinstance(value, StreamV):
        return value
    if isinstance(value, ConstV) and value.value in (0, None):
        return None  # the legacy default stream, or the current one
    label = value.spelling if isinstance(value, Unknown) and value.spelling else "an unresolved stream"
    return StreamV(f"opaque:{label}", label)


def _stream_context(value: Value) -> StreamV | None:
    if isinstance(value, ContextV):
        return value.stream
    if isinstance(value, StreamV):
        return value
    return None


def _label_streams(value: SeqV | RecordV, spelled: str) -> Value:
    """New streams kept in a list or dict, named by their place in it."""

    def label(item: Value, place: str) -> Value:
        if isinstance(item, StreamV) and item.label == _NEW_STREAM:
            return replace(item, label=f"{spelled}[{place}]")
        return item

    if isinstance(value, SeqV):
        if len(value.items) == 1:  # one stream standing for every element
            return SeqV((label(value.items[0], "..."),))
        return SeqV(tuple(label(item, str(i)) for i, item in enumerate(value.items)))
    return RecordV(value.type_name, tuple((key, label(item, repr(key))) for key, item in value.fields))


def _accepts(method: ir.Function, call: ir.Call) -> bool:
    """Whether a method's signature can take a call's arguments (the receiver aside)."""
    if call.star_args:
        return True
    params = method.params[1:] if not _is_static(method) else method.params
    named = [param for param in params if not param.star]
    varargs = any(param.star == "*" for param in params)
    varkw = any(param.star == "**" for param in params)
    if len(call.args) > len(named) and not varargs:
        return False
    given = {key for key, _ in call.kwargs}
    if any(param.default is None and param.name not in given for param in named[len(call.args) :]):
        return False
    return varkw or given <= {param.name for param in named}


def _carries_handle(value: Value, depth: int = 0) -> bool:
    """Whether a value is or holds a stream, event or queue."""
    if isinstance(value, (StreamV, EventV, QueueV, ContextV)):
        return True
    if depth < 2 and isinstance(value, (SeqV, UnionV)):
        items = value.items if isinstance(value, SeqV) else value.options
        return any(_carries_handle(item, depth + 1) for item in items)
    return False


def _small_range(iterable: Value) -> int:
    """n for ``range(n)`` with a small constant n (a few streams made in a comprehension)."""
    if isinstance(iterable, SeqV) and iterable.items and all(isinstance(i, ConstV) for i in iterable.items):
        return len(iterable.items)
    return 0


def _is_none(value: Value) -> bool | None:
    if isinstance(value, ConstV):
        return value.value is None
    if isinstance(value, (Unknown, UnionV)):
        return None
    if isinstance(value, ExternalV) and value.dotted.endswith("()"):
        return None  # what a library call returned (``cache.get(key)``) may be None
    return False


def _truth(value: Value) -> bool | None:
    if (
        isinstance(value, ConstV)
        and isinstance(value.value, (bool, int))
        and not isinstance(value.value, float)
    ):
        return bool(value.value)
    if isinstance(value, ConstV) and value.value is None:
        return False
    return None


def _element(value: Value) -> Value:
    if isinstance(value, ZipV):
        return SeqV(tuple(_element(part) for part in value.parts))
    if isinstance(value, SeqV):
        return join(list(value.items)) if value.items else UNKNOWN
    if isinstance(value, TensorV):
        return value
    if isinstance(value, UnionV):  # one of several collections: an element of one of them
        return join([_element(option) for option in value.options])
    if isinstance(value, RecordV) and value.fields:  # a dict with string keys: iterating gives keys
        return join([ConstV(key, repr(key), "", None) for key, _ in value.fields])
    return UNKNOWN


def _waits_on_each(loop: ir.Loop) -> bool:
    """Whether the loop's body waits on each element (``for e in events: e.synchronize()``,
    through nested loops over the element's parts): over an empty collection it has nothing to
    wait for, whatever the collection is."""
    bound = _target_names(loop.target)
    if not bound:
        return False

    def waits(statements: Sequence[ir.Stmt]) -> bool:
        for statement in statements:
            if (
                isinstance(statement, ir.Loop)
                and isinstance(statement.iter, ir.Name)
                and statement.iter.id in bound
            ):
                bound.update(_target_names(statement.target))
                if waits(statement.body):
                    return True
            elif isinstance(statement, ir.Eval) and isinstance(statement.value, ir.Call):
                func = statement.value.func
                if (
                    isinstance(func, ir.Attr)
                    and func.name in ("synchronize", "wait")
                    and isinstance(func.base, ir.Name)
                    and func.base.id in bound
                ):
                    return True
        return False

    return waits(loop.body)


def _target_names(target: ir.Expr | None) -> set[str]:
    if isinstance(target, ir.Name):
        return {target.id}
    if isinstance(target, ir.Seq):
        return {name for item in target.items for name in _target_names(item)}
    return set()


def _holds_something(value: Value) -> bool:
    """A sequence the code spells with items, whichever option it is."""
    return all(isinstance(option, SeqV) and option.items for option in options(value))


def _merge_names(before: dict[str, Value], paths: Sequence[_Path]) -> dict[str, Value]:
    """Names where paths join: a name bound differently on two paths is either value
    (``if not available: device = "cpu"`` leaves the device unknown), except two different
    buffers, where the last path to bind it wins: host reads are matched by one identity."""
    live = [path.env for path in paths if not path.state.returned] or [paths[-1].env]
    merged = dict(live[0])
    for env in live[1:]:
        for name, value in env.items():
            held = merged.get(name)
            if held is None or held is value:
                merged[name] = value
            elif isinstance(held, TensorV) and isinstance(value, TensorV) and held.key != value.key:
                if value is not before.get(name):
                    merged[name] = value
            else:
                merged[name] = join([held, value])
    return merged


def _streams_differ(one: dict[str, Value], other: dict[str, Value]) -> bool:
    """Whether two paths bind some name to different streams or events."""
    return any(
        name in other and other[name] != value and (_orders_anything(value) or _orders_anything(other[name]))
        for name, value in one.items()
    )


def _orders_anything(value: Value) -> bool:
    return any(isinstance(option, (EventV, StreamV)) for option in options(value))


def _narrowed(test: ir.Expr, env: dict[str, Value]) -> tuple[str, Value, Value] | None:
    """For ``if name:`` over a name that may be an empty sequence or None: (name, its value,
    its value where the test holds)."""
    if not isinstance(test, ir.Name) or not isinstance(env.get(test.id), UnionV):
        return None
    value = env[test.id]
    assert isinstance(value, UnionV)
    kept = [
        option
        for option in value.options
        if not (isinstance(option, SeqV) and not option.items) and _is_none(option) is not True
    ]
    if not kept or len(kept) == len(value.options):
        return None
    return test.id, value, join(kept)


def _orders_something(value: Value) -> bool:
    """An event or stream, whichever option it is."""
    return all(isinstance(option, (EventV, StreamV)) for option in options(value))


def _unpack_starred(value: Value, targets: tuple[ir.Expr, ...]) -> list[Value]:
    """``err, *rest = result``: the starred target takes the middle of a spelt sequence."""
    star = next((i for i, t in enumerate(targets) if isinstance(t, ir.Starred)), None)
    if star is None:
        return _unpack(value, len(targets))
    after = len(targets) - star - 1
    if not isinstance(value, SeqV) or len(value.items) < len(targets) - 1:
        return [UNKNOWN] * len(targets)
    end = len(value.items) - after
    return [*value.items[:star], SeqV(value.items[star:end]), *value.items[end:]]


def _unpack(value: Value, count: int) -> list[Value]:
    if isinstance(value, UnionV):
        columns = [_unpack(option, count) for option in value.options]
        return [join([column[i] for column in columns]) for i in range(count)]
    if isinstance(value, SeqV) and len(value.items) == count:
        return list(value.items)
    if isinstance(value, RecordV) and len(value.fields) == count:
        return [v for _, v in value.fields]
    if isinstance(value, TensorV):
        return [value] * count
    return [UNKNOWN] * count


def _index(base: Value, index: Value) -> Value:
    if isinstance(base, UnionV):
        # A container held in a field: its empty display and what was stored in it since.
        options = [option for option in base.options if not (isinstance(option, SeqV) and not option.items)]
        return join([_index(option, index) for option in options]) if options else UNKNOWN
    if isinstance(base, (StreamV, EventV, ObjectV, QueueV, FuncV)):
        return base  # a container known only by what it holds (``events[key]``)
    if isinstance(base, SeqV) and isinstance(index, ConstV) and isinstance(index.value, int):
        if -len(base.items) <= index.value < len(base.items):
            return base.items[index.value]
        return UNKNOWN
    if isinstance(base, SeqV) and base.items and not any(isinstance(i, TensorV) for i in base.items):
        return join(list(base.items))  # some element: a stream, an event, an object
    if isinstance(base, RecordV) and isinstance(index, ConstV) and isinstance(index.value, str):
        return base.get(index.value) or UNKNOWN
    if isinstance(base, RecordV) and base.fields:
        # Under a key the code computes (``for k in streams: streams[k]``): one of the entries.
        spelt = index.options if isinstance(index, UnionV) else (index,)
        keys = [o.value for o in spelt if isinstance(o, ConstV) and isinstance(o.value, str)]
        picked = [value for key, value in base.fields if key in keys] if keys else []
        return join(picked or [value for _, value in base.fields])
    return view_of(base)


def _kind(value: Value) -> int | None:
    if isinstance(value, ConstV):
        if isinstance(value.value, int):
            return value.value
        return KIND_SPELLINGS.get(value.spelling.rsplit(".", 1)[-1])
    if isinstance(value, Unknown):
        return KIND_SPELLINGS.get(value.spelling.rsplit(".", 1)[-1])
    if isinstance(value, ExternalV):
        return KIND_SPELLINGS.get(value.dotted.rsplit(".", 1)[-1])
    return None


def _device_memory(value: Value) -> Memory | None:
    if isinstance(value, ConstV) and isinstance(value.value, str):
        head = value.value.split(":")[0]
        if head == "cpu":
            return Memory.HOST
        if head in ("cuda", "hip", "xpu", "npu", "mps"):
            return Memory.DEVICE
    if isinstance(value, ConstV) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return Memory.DEVICE  # a device index
    if isinstance(value, TensorV):
        return value.memory
    return None


def _allocation_memory(args: tuple[Value, ...], kwargs: dict[str, Value], like: bool) -> Memory:
    if _truth(kwargs.get("pin_memory", UNKNOWN)) is True:
        return Memory.HOST
    if "device" in kwargs:
        return _device_memory(kwargs["device"]) or Memory.UNKNOWN
    if like:  # ``empty_like(t)``: where t is; a table of t's pointers points where t is
        data = args[0] if args else kwargs.get("data")
        placed = memory_of(data) if data is not None else None
        return placed or (Memory.UNKNOWN if isinstance(data, TensorV) else Memory.HOST)
    return Memory.HOST  # torch allocates on the CPU by default


def _order_in(values: list[tuple[str, Value]]) -> SourceOrder | None:
    """A source access order among call arguments: a keyword, or a field of a record passed
    directly, through ``byref``/``addressof``, or in a list."""
    for key, value in values:
        if key in ORDER_KEYWORDS:
            order = _order_value(value, "passed as an argument")
            if order is not None:
                return order
        if key == "":
            found = _order_in_value(value, 0)
            if found is not None:
                return found
    return None


def _order_in_value(value: Value, depth: int) -> SourceOrder | None:
    if depth > 3:
        return None
    if isinstance(value, RecordV):
        for name in ORDER_KEYWORDS:
            field_value = value.get(name)
            if field_value is not None:
                return _order_value(field_value, "set in the copy attributes")
        for _, inner in value.fields:
            found = _order_in_value(inner, depth + 1)
            if found is not None:
                return found
    if isinstance(value, (SeqV, UnionV)):
        for item in value.items if isinstance(value, SeqV) else value.options:
            found = _order_in_value(item, depth + 1)
            if found is not None:
                return found
    return None


def _order_value(value: Value, origin: str) -> SourceOrder | None:
    if isinstance(value, UnionV):
        orders = [o for o in (_order_value(v, origin) for v in value.options) if o is not None]
        return max(orders, key=lambda o: o.value) if orders else None
    if not isinstance(value, ConstV) or value.span is None:
        return None
    number: int | None = None
    if isinstance(value.value, bool):
        number = None
    elif isinstance(value.value, int):
        number = value.value
    elif isinstance(value.value, str) and value.value.lower() in ORDER_STRINGS:
        number = ORDER_STRINGS[value.value.lower()]
    if number is None:
        return None
    return SourceOrder(
        number, value.spelling, value.span, value.origin or origin, value.path, value.defaulted_at
    )
