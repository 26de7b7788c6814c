"""What the interpreter carries along one path (streams ordered, events recorded, writes,
unfinished copies), how paths merge where they join, and the frames and hand-offs they run in."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kvguard.lint import ir
from kvguard.lint.findings import FlowStep, Span
from kvguard.lint.results import MAIN_THREAD, PendingCopy
from kvguard.lint.values import StreamEntry, StreamV, Value

BEFORE_PATH = -1
# When an earlier call of the entry point ran: before the producer's work for this call.
EARLIER_CALL = -2


@dataclass
class PathState:
    barriers: dict[str, int] = field(default_factory=dict)
    gaps: dict[str, tuple[FlowStep, ...]] = field(default_factory=dict)
    records: dict[str, tuple[StreamV | None, int]] = field(default_factory=dict)
    # Writes of each tensor: (when, line, the stream they were issued on).
    writes: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    # Buffers a kernel the project shows was launched with (it may read them), as writes are.
    reads: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    synced: int | None = None
    # a taught barrier helper ordered every stream (not a host sync)
    ordered_all: int | None = None
    streams: tuple[StreamV, ...] = ()
    returned: bool = False  # the path has left the function
    # Asynchronous copies into host buffers not yet waited for, by buffer identity.
    pending: dict[str, PendingCopy] = field(default_factory=dict)
    # When a copy was last issued on each stream, on this path.
    issued: dict[str, int] = field(default_factory=dict)
    # Objects (by class) whose method call this path is in: the streams their earlier calls
    # left ordered behind the producer are ordered when it starts (decided once every call
    # has been seen, ``Interpreter._carried``).
    carried: frozenset[tuple[str, str]] = frozenset()
    # When the requesting thread last called code outside the project (a kernel launch, say):
    # producer work a barrier must follow to order a stream behind it.
    launched: int = BEFORE_PATH
    # Events made on this path and not recorded yet: waiting on one orders nothing.
    unrecorded: frozenset[str] = frozenset()
    # A ``set_stream`` made another stream current on the thread (in a callee, say): the
    # producer's kernels run there from then on, not on the device's default stream.
    default_displaced: bool = False
    # Per side stream, the first ``with`` block that entered it on this path while nothing
    # ordered it behind the producer, and when.
    unordered_entries: dict[str, tuple[StreamEntry, int]] = field(default_factory=dict)
    # A host wait the code may have made on the requesting thread (a blocking read of a
    # tensor it does not place, ``tokens.tolist()``; a wait skipped only where what it waits
    # on is unset): when, and why it may have waited.
    maybe_synced: tuple[int, str] | None = None
    # Per side stream, a barrier the code may have taken (a wait skipped only where what it
    # waits on is unset): when, and why.
    maybe_ordered: dict[str, tuple[int, str]] = field(default_factory=dict)
    # Streams made to wait on other streams: (waiting stream, stream waited on, when). The
    # host synchronizing the waiting stream has waited for the other's work up to then.
    joined: frozenset[tuple[str, str, int]] = frozenset()
    # Events recorded on a stream that was ordered behind the producer at the record: since
    # when it was (a wait on the event orders the waiting stream as far).
    horizons: dict[str, int] = field(default_factory=dict)
    # The thread that handed this path its work: the requesting thread, or another thread that
    # put the payload a consumer took off a queue (a job that computed what it hands over). Its
    # current stream is the producer's on this path.
    requester: str = MAIN_THREAD
    # Streams each merged path left ordered after its last copy there and its last launch
    # (a loop that may not run, each turn ending in a host sync): as of when.
    settled: dict[str, int] = field(default_factory=dict)

    def left_ordered(self, stream: str) -> bool:
        """Whether the path ordered the stream behind the producer after its last copy there
        and after the producer's last launch (the wait itself may be that launch)."""
        issued = self.issued.get(stream)
        if issued is None:
            return False
        if self.settled.get(stream, BEFORE_PATH) >= max(issued, self.launched):
            return True
        barrier = self.ordered_since(stream)
        return barrier is not None and barrier > issued and barrier >= self.launched

    def ordered_since(self, stream: str) -> int | None:
        return _later(self.barriers.get(stream), self.all_ordered_since())

    def all_ordered_since(self) -> int | None:
        """Since when every stream is ordered behind the producer (a host sync, a taught
        barrier helper)."""
        return _later(self.synced, self.ordered_all)

    def copy(self) -> PathState:
        return PathState(
            dict(self.barriers),
            dict(self.gaps),
            dict(self.records),
            dict(self.writes),
            dict(self.reads),
            self.synced,
            self.ordered_all,
            self.streams,
            self.returned,
            dict(self.pending),
            dict(self.issued),
            self.carried,
            self.launched,
            self.unrecorded,
            self.default_displaced,
            dict(self.unordered_entries),
            self.maybe_synced,
            dict(self.maybe_ordered),
            self.joined,
            dict(self.horizons),
            self.requester,
            dict(self.settled),
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
class Branch:
    """One way through a branch: where it leaves the state and the names, and its step."""

    state: PathState
    env: dict[str, Value]
    step: FlowStep | None
    # A collection the test found empty on this path (``if batch.evicted:`` not taken): a
    # later loop over it runs no turn here.
    emptied: str = ""


# Branches on which stream to use, nested or in sequence, that each run the rest of their
# block on their own: past this, paths merge.
MAX_SPLITS = 3


def merge_or_end(states: Sequence[PathState], otherwise: PathState) -> PathState:
    """The paths merged, without steps; with none, ``otherwise`` (a path that has ended)."""
    if not states:
        ended = otherwise.copy()
        ended.returned = True
        return ended
    return merge_paths(states, [None] * len(states))


def merge_paths(states: Sequence[PathState], steps: Sequence[FlowStep | None]) -> PathState:
    """Where paths join. Paths that returned are left out: they continue at the caller."""
    live = [(s, step) for s, step in zip(states, steps, strict=True) if not s.returned]
    if not live:
        done = states[0].copy()
        done.returned = True
        return done
    if len(live) == 1:
        return _merged_alone(*live[0])
    return _merged([s for s, _ in live], [step for _, step in live])


def _merged(states: Sequence[PathState], steps: Sequence[FlowStep | None]) -> PathState:
    """Live paths merged (``_merged_alone`` must give what this gives for one)."""
    merged = PathState(streams=states[0].streams, default_displaced=all(s.default_displaced for s in states))
    # ``ordered_since`` per key below, with each path's ``all_ordered_since`` computed once.
    all_ordered = [s.all_ordered_since() for s in states]
    keys = set().union(*(s.barriers for s in states)) | set().union(*(s.gaps for s in states))
    for key in keys:
        times = [_later(s.barriers.get(key), every) for s, every in zip(states, all_ordered, strict=True)]
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
    # Paths often leave these maps as they found them: a map equal to one already merged
    # whole adds nothing, and the first is taken whole (dict operations, not a loop).
    writes = merged.writes
    whole: list[dict[str, tuple[int, int, str]]] = []
    for state, ordered in zip(states, all_ordered, strict=True):
        # A write its own path ordered every stream behind (a host sync after it) is done
        # for every later copy: merged with another path's older barrier it would look stale.
        written = state.writes
        if not written or (ordered is None and any(written == done for done in whole)):
            continue
        if not writes:
            writes.update(
                written if ordered is None else {t: w for t, w in written.items() if w[0] >= ordered}
            )
        else:
            for tensor, write in written.items():
                if ordered is not None and write[0] < ordered:
                    continue
                latest = writes.get(tensor)
                if latest is None or latest[0] < write[0]:
                    writes[tensor] = write
        if ordered is None:
            whole.append(written)
    merged.reads = _latest_of([s.reads for s in states])
    pending = merged.pending
    merged_pending: list[dict[str, PendingCopy]] = []
    for state in states:
        source = state.pending
        if not source or any(source == done for done in merged_pending):
            continue
        if not pending:
            pending.update(source)
        else:
            for key, copy in source.items():
                # Still running on some path: reading is unsafe; surely so where the code
                # shows that nothing waited for it on that path.
                known = pending.get(key)
                if known is None or (not known.established and copy.established):
                    pending[key] = copy
        merged_pending.append(source)
    merged.issued = _latest_time([s.issued for s in states])
    merged.carried = frozenset.intersection(*(s.carried for s in states))
    merged.joined = frozenset.intersection(*(s.joined for s in states))
    requesters = {s.requester for s in states}
    merged.requester = requesters.pop() if len(requesters) == 1 else MAIN_THREAD
    # Ordered as far as every path has the event's stream ordered at its record.
    for event in set.intersection(*(set(s.horizons) for s in states)):
        merged.horizons[event] = min(s.horizons[event] for s in states)
    merged.launched = max(s.launched for s in states)
    for key, time in merged.issued.items():
        if all(s.left_ordered(key) for s in states if key in s.issued):
            merged.settled[key] = max(time, merged.launched)
    # Unrecorded only where no path recorded it: a loop that records an event per element
    # (``for x in xs: ...; done.record()``) and the path that skips an empty loop join here,
    # and waiting on the event after the loop orders behind the last record.
    merged.unrecorded = frozenset.intersection(*(s.unrecorded for s in states))
    # An entry every path made: a barrier before it runs on each of them.
    first, *others = (s.unordered_entries for s in states)
    merged.unordered_entries = {
        key: entry for key, entry in first.items() if all(other.get(key) == entry for other in others)
    }
    merged.synced = _earliest([s.synced for s in states])
    # Where each path waited or may have (a path that surely waited counts), the merge may have.
    maybe = [s.maybe_synced for s in states if s.maybe_synced is not None]
    unwaited = any(s.maybe_synced is None and s.synced is None for s in states)
    merged.maybe_synced = None if unwaited or not maybe else min(maybe)
    merged.ordered_all = _earliest([s.ordered_all for s in states])
    # Likewise per stream: where each path is ordered or may be, and not every path surely is.
    for key in set().union(*(s.maybe_ordered for s in states)):
        covered = all(
            _later(s.barriers.get(key), every) is not None or key in s.maybe_ordered
            for s, every in zip(states, all_ordered, strict=True)
        )
        if key not in merged.barriers and covered:
            merged.maybe_ordered[key] = min(s.maybe_ordered[key] for s in states if key in s.maybe_ordered)
    return merged


def _merged_alone(state: PathState, step: FlowStep | None) -> PathState:
    """``_merged`` of one live path, without its loops over paths (half of all merges):
    the state as a merge leaves it, its barriers at least as late as its host syncs and the
    writes those syncs finished dropped."""
    ordered = state.all_ordered_since()
    merged = PathState(
        records=dict(state.records),
        reads=dict(state.reads),
        synced=state.synced,
        ordered_all=state.ordered_all,
        streams=state.streams,
        pending=dict(state.pending),
        issued=dict(state.issued),
        carried=state.carried,
        launched=state.launched,
        unrecorded=state.unrecorded,
        default_displaced=state.default_displaced,
        unordered_entries=dict(state.unordered_entries),
        maybe_synced=state.maybe_synced,
        joined=state.joined,
        horizons=dict(state.horizons),
        requester=state.requester,
    )
    if ordered is None:
        merged.barriers = dict(state.barriers)
        merged.writes = dict(state.writes)
        for key, gap in state.gaps.items():
            if key not in state.barriers:
                merged.gaps[key] = ((step,) if step is not None else ()) + gap
    else:
        merged.barriers = {
            key: max(state.barriers.get(key, ordered), ordered) for key in {*state.barriers, *state.gaps}
        }
        merged.writes = {tensor: write for tensor, write in state.writes.items() if write[0] >= ordered}
    for key, time in merged.issued.items():
        if state.left_ordered(key):
            merged.settled[key] = max(time, merged.launched)
    merged.maybe_ordered = {
        key: entry for key, entry in state.maybe_ordered.items() if key not in merged.barriers
    }
    return merged


def _latest_of(maps: list[dict[str, tuple[int, int, str]]]) -> dict[str, tuple[int, int, str]]:
    """Each key's entry with the latest time (its first item) over the maps."""
    merged: dict[str, tuple[int, int, str]] = {}
    done: list[dict[str, tuple[int, int, str]]] = []
    for source in maps:
        if not source or any(source == seen for seen in done):
            continue
        if not merged:
            merged.update(source)
        else:
            for key, entry in source.items():
                latest = merged.get(key)
                if latest is None or latest[0] < entry[0]:
                    merged[key] = entry
        done.append(source)
    return merged


def _latest_time(maps: list[dict[str, int]]) -> dict[str, int]:
    """Each key's latest time over the maps."""
    merged: dict[str, int] = {}
    done: list[dict[str, int]] = []
    for source in maps:
        if not source or any(source == seen for seen in done):
            continue
        if not merged:
            merged.update(source)
        else:
            for key, time in source.items():
                merged[key] = max(time, merged.get(key, time))
        done.append(source)
    return merged


def _later(one: int | None, other: int | None) -> int | None:
    """The later of two times, either of which may be missing."""
    return one if other is None else other if one is None else max(one, other)


def _earliest(times: list[int | None]) -> int | None:
    """When every path had it: the earliest time, or None if some path never did."""
    return None if any(t is None for t in times) else min(t for t in times if t is not None)


@dataclass(frozen=True)
class ModuleEntry:
    name: str
    path: str
    code: ir.ModuleCode


@dataclass
class Frame:
    module: ModuleEntry
    env: dict[str, Value]
    thread: str
    flow: tuple[FlowStep, ...]
    depth: int
    stack: tuple[str, ...]
    returns: list[Value] = field(default_factory=list)
    yielded: list[Value] = field(default_factory=list)  # a generator's values, for its caller
    exits: list[PathState] = field(default_factory=list)  # states of paths that returned early
    # Runs a ``with`` block where a context-manager generator yields (the state there, and
    # what it yields, bound to the ``as`` name).
    on_yield: Callable[[PathState, Value, Span], PathState] | None = None
    global_names: tuple[str, ...] = ()
    # Parameters bound to a caller's buffer: the caller's identity for that buffer.
    aliases: dict[str, str] = field(default_factory=dict)
    # Per enclosing loop, innermost last: the states of paths that broke out of it, and of
    # paths that continued to its next turn.
    loops: list[tuple[list[PathState], list[PathState]]] = field(default_factory=list)
    # Per enclosing ``try`` with handlers, innermost last: the states of paths that raised in it.
    raised: list[list[PathState]] = field(default_factory=list)
    # Names bound to a comparison (``on_side = current != side``): an ``if`` on the name tests it.
    comparisons: dict[str, ir.Equals] = field(default_factory=dict)
    # Building one of several alike objects a comprehension makes (``[Pair() for _ in
    # range(2)]``): what it allocates stands for each object's own.
    several: bool = False
    # The call in a caller that handed this function the copy entry point it calls
    # (``check(cu.cuMemcpyDtoHAsync, dst, src, n, stream)``): where that copy is spelt.
    copy_site: tuple[str, ir.Call] | None = None
    # The function only passes its parameters to one raw copy entry point (a ctypes binding's
    # ``memcpy_async(dst, src, n, kind, stream)``): the copy is spelt where it is called.
    wraps_copy: bool = False
    # Local names bound to a view of another local tensor (``dst = table[:n].numpy()``): a
    # table filled through the view is filled in its base too.
    views: dict[str, str] = field(default_factory=dict)
    # A generator a ``for`` loop of its caller iterates: the loop body runs between its yields.
    resumed_by_loop: bool = False


@dataclass
class Put:
    payload: Value
    state: PathState
    flow: tuple[FlowStep, ...]
    # The function that put it (its qualified name), and the thread it ran on.
    putter: str = ""
    thread: str = MAIN_THREAD


@dataclass
class ThreadStart:
    target: Value
    arguments: tuple[Value, ...]
    state: PathState
    flow: tuple[FlowStep, ...]
    label: str
    # Started by a function run on its own (its callers unresolved), with unknown arguments.
    fallback: bool = False
    # An asyncio task: it runs later, on the thread that made it (same current stream).
    same_thread: bool = False
    # What the thread runs before the target (a thread pool's ``initializer``).
    initializer: Value | None = None
    # Where the job was handed over, and what runs after it on its thread, given its future
    # (``future.add_done_callback(fn)``).
    site: str = ""
    callbacks: list[Value] = field(default_factory=list)


class ModuleNames:
    """Dotted module names of files, from the ``__init__.py`` files above them. Each
    directory's package prefix is worked out once: a large tree has thousands of files in a
    few hundred directories."""

    def __init__(self, base: str | None = None) -> None:
        """``base``: the directory relative paths start from (the working directory if none)."""
        self._is_package: dict[str, bool] = {}
        self._prefixes: dict[str, str] = {}
        self._base = os.path.abspath(base if base is not None else os.curdir).replace(os.sep, "/")

    def __call__(self, path: str) -> str:
        """The module name of ``path`` (relative to the base directory, or absolute)."""
        path = posixpath.normpath(posixpath.join(self._base, path.replace(os.sep, "/")))
        directory, name = posixpath.split(path)
        dot = name.rfind(".")
        stem = name[:dot] if 0 < dot < len(name) - 1 else name
        prefix = self._prefix(directory)
        if stem == "__init__":
            return prefix or stem
        return f"{prefix}.{stem}" if prefix else stem

    def _prefix(self, directory: str) -> str:
        # Up to the outermost package above the file: a directory without ``__init__.py``
        # under one is a namespace portion of it (``sglang/srt/utils/x.py`` is
        # ``sglang.srt.utils.x`` where only ``sglang`` and ``utils`` have one).
        if directory not in self._prefixes:
            ancestors = []
            above = directory
            while posixpath.basename(above):
                ancestors.append(above)
                above = posixpath.dirname(above)
            packages = [index for index, ancestor in enumerate(ancestors) if self._package(ancestor)]
            outermost = packages[-1] + 1 if packages else 0
            names = (posixpath.basename(ancestor) for ancestor in reversed(ancestors[:outermost]))
            self._prefixes[directory] = ".".join(names)
        return self._prefixes[directory]

    def _package(self, directory: str) -> bool:
        if directory not in self._is_package:
            self._is_package[directory] = os.path.isfile(posixpath.join(directory, "__init__.py"))
        return self._is_package[directory]
