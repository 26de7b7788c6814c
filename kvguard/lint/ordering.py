"""The stream-ordering analysis: for every copy, is it ordered behind the producer?

It runs over function summaries (never source) and answers, per copy launch: which
stream issues it, whether every path that reaches it carries a barrier behind the
producer stream taken after the producer's last write of the source, which path lacks
one, and whether a host-blocking sync of the producer precedes it.

The producer is the stream of the calling thread (``current_stream()``). A barrier is
``S.wait_stream(P)``, or ``S.wait_event(E)`` / ``E.wait(S)`` with ``E`` recorded on a
stream other than ``S``, or a host-blocking sync. Conservative choices, documented in the
rule pages: a ``wait_stream`` on a stream kvguard cannot tell apart from the producer
counts as a barrier, and an event whose record is not visible here (a parameter, an
attribute) counts as recorded before the function began.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kvguard.lint.facts import (
    CURRENT_STREAM,
    Branch,
    Copy,
    FileSummary,
    FunctionSummary,
    HostSync,
    Item,
    Loop,
    RecordEvent,
    WaitEvent,
    WaitStream,
    Write,
)
from kvguard.lint.findings import FlowStep

_BEFORE_FUNCTION = -1


@dataclass(frozen=True)
class CopySite:
    """One copy launch and what the analysis knows about its ordering."""

    path: str
    function: str
    copy: Copy
    # Every path to the copy has a barrier behind the producer after its last write.
    ordered: bool
    # A path without the barrier (branch arms taken), when only some paths have it.
    gap: tuple[FlowStep, ...]
    # Line of a producer write after the last barrier, when that is what breaks ordering.
    stale_write_line: int | None
    host_synced: bool

    @property
    def on_side_stream(self) -> bool:
        return self.copy.stream != CURRENT_STREAM


@dataclass
class _State:
    # stream -> time from which it is ordered behind the producer
    barriers: dict[str, int] = field(default_factory=dict)
    # stream -> steps of a path on which it has no barrier (set where paths merge)
    gaps: dict[str, tuple[FlowStep, ...]] = field(default_factory=dict)
    # event -> (stream it was recorded on, time)
    records: dict[str, tuple[str, int]] = field(default_factory=dict)
    # tensor -> (time, line) of the last producer write
    writes: dict[str, tuple[int, int]] = field(default_factory=dict)
    # time of the last host-blocking sync of the producer, None if some path has none
    synced: int | None = None

    def ordered_since(self, stream: str) -> int | None:
        """When ``stream`` became ordered behind the producer (a host sync orders every stream)."""
        times = [t for t in (self.barriers.get(stream), self.synced) if t is not None]
        return max(times) if times else None

    def copy(self) -> _State:
        return _State(
            dict(self.barriers), dict(self.gaps), dict(self.records), dict(self.writes), self.synced
        )


def _merge(states: Sequence[_State], arm_steps: Sequence[FlowStep | None]) -> _State:
    merged = _State()
    streams = set().union(*(s.barriers for s in states)) | set().union(*(s.gaps for s in states))
    for stream in streams:
        times = [s.ordered_since(stream) for s in states]
        present = [t for t in times if t is not None]
        if len(present) == len(states):
            merged.barriers[stream] = min(present)
            continue
        for state, time, step in zip(states, times, arm_steps, strict=True):
            if time is None and (present or stream in state.gaps):
                lead = (step,) if step is not None else ()
                merged.gaps[stream] = lead + state.gaps.get(stream, ())
                break
    common_events = set.intersection(*(set(s.records) for s in states)) if states else set()
    for event in common_events:
        merged.records[event] = min((s.records[event] for s in states), key=lambda r: r[1])
    for state in states:
        for tensor, write in state.writes.items():
            if tensor not in merged.writes or merged.writes[tensor][0] < write[0]:
                merged.writes[tensor] = write
    synced = [s.synced for s in states]
    merged.synced = None if any(t is None for t in synced) else min(t for t in synced if t is not None)
    return merged


class _FunctionAnalysis:
    def __init__(self, path: str, function: FunctionSummary) -> None:
        self._path = path
        self._function = function
        self._clock = 0
        self.sites: list[CopySite] = []

    def run(self) -> list[CopySite]:
        self._walk(self._function.body, _State(), report=True)
        return self.sites

    def _walk(self, items: Iterable[Item], state: _State, report: bool) -> _State:
        for item in items:
            self._clock += 1
            if isinstance(item, Branch):
                ends = [self._walk(arm, state.copy(), report) for arm in item.arms]
                steps = [
                    FlowStep(self._path, item.span.line, item.span.column, label) for label in item.labels
                ]
                state = _merge(ends, steps)
            elif isinstance(item, Loop):
                first = self._walk(item.body, state.copy(), report=False)
                entry = _merge([state, first], [None, None])
                last = self._walk(item.body, entry, report)
                state = _merge([state, last], [None, None])
            else:
                self._step(item, state, report)
        return state

    def _step(self, fact: Item, state: _State, report: bool) -> None:
        now = self._clock
        if isinstance(fact, WaitStream):
            if fact.producer != fact.waiter:
                state.barriers[fact.waiter] = now
                state.gaps.pop(fact.waiter, None)
        elif isinstance(fact, RecordEvent):
            state.records[fact.event] = (fact.stream, now)
        elif isinstance(fact, WaitEvent):
            stream, recorded = state.records.get(fact.event, ("<elsewhere>", _BEFORE_FUNCTION))
            if stream != fact.waiter:
                state.barriers[fact.waiter] = max(state.barriers.get(fact.waiter, recorded), recorded)
                state.gaps.pop(fact.waiter, None)
        elif isinstance(fact, HostSync):
            if fact.target == "device" or fact.target == CURRENT_STREAM:
                state.synced = now
            elif fact.target in state.records and state.records[fact.target][0] == CURRENT_STREAM:
                state.synced = state.records[fact.target][1]
        elif isinstance(fact, Write):
            state.writes[fact.tensor] = (now, fact.span.line)
        elif isinstance(fact, Copy) and report:
            self.sites.append(self._site(fact, state))

    def _site(self, copy: Copy, state: _State) -> CopySite:
        barrier = state.ordered_since(copy.stream)
        write = state.writes.get(copy.source) if copy.source else None
        stale = barrier is not None and write is not None and write[0] > barrier
        return CopySite(
            path=self._path,
            function=self._function.qualname,
            copy=copy,
            ordered=barrier is not None and not stale,
            gap=state.gaps.get(copy.stream, ()) if barrier is None else (),
            stale_write_line=write[1] if stale and write is not None else None,
            host_synced=state.synced is not None and (write is None or write[0] < state.synced),
        )


def copy_sites(summaries: Iterable[FileSummary]) -> list[CopySite]:
    sites: list[CopySite] = []
    for summary in summaries:
        for function in summary.functions:
            sites.extend(_FunctionAnalysis(summary.path, function).run())
    return sites
