"""The guard: before a copy reaches the driver, prove it is ordered behind the compute stream.

A request is opened on the thread that asks for the copy, which notes that thread's compute
stream and the time. Before the copy is issued, the guard looks in the event log (fed by
PyTorch's trace callbacks, not by the code under check) for a wait on the transfer stream made
after the request, on an event recorded on that compute stream since the thread's previous
request. It also checks that the source access order the driver will be given fits the source.
"""

from __future__ import annotations

import enum
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from kvguard.runtime.counters import RuntimeCounters
from kvguard.runtime.errors import GuardViolation
from kvguard.runtime.evidence import StreamEventLog, StreamWait, process_event_log
from kvguard.runtime.order import MemoryKind, SourceOrder

logger = logging.getLogger("kvguard.runtime")


class GuardPolicy(str, enum.Enum):
    RAISE = "raise"  # raise GuardViolation before the copy
    REFUSE = "refuse"  # skip the copy and never report its blocks
    WARN = "warn"  # log and copy anyway


class ViolationKind(str, enum.Enum):
    NO_WAIT = "no_wait"
    WAIT_NOT_ON_COMPUTE = "wait_not_on_compute"
    STALE_RECORD = "stale_record"
    UNSAFE_SOURCE_ORDER = "unsafe_source_order"


_EXPLANATIONS = {
    ViolationKind.NO_WAIT: "the transfer stream made no wait after the request",
    ViolationKind.WAIT_NOT_ON_COMPUTE: (
        "the transfer stream waited only on events not recorded on the requesting thread's "
        "compute stream (a wait_stream(current_stream()) on the copy thread looks like this)"
    ),
    ViolationKind.STALE_RECORD: (
        "the event waited on was recorded on the compute stream before the thread's previous "
        "request, so it does not cover the writes since"
    ),
    ViolationKind.UNSAFE_SOURCE_ORDER: (
        "the copy reads GPU memory with a source access order other than STREAM"
    ),
}
_FIX = (
    "record an event on the compute stream when the copy is requested, on the requesting "
    "thread, and wait on it on the transfer stream before the copy, with srcAccessOrder STREAM "
    "for a GPU source"
)


@dataclass(frozen=True)
class Verdict:
    """Whether to hand the copy to the driver, and what was wrong with it, if anything."""

    copy: bool
    violation: ViolationKind | None = None


class CopyRequest(NamedTuple):
    """A copy as requested: when, by which thread, behind which compute stream.

    A tuple, not a dataclass: one is made on the compute thread for every copy.
    """

    seq: int
    thread: int
    compute_stream: int
    fresh_after: int  # seq of the same thread's previous request (0 if none)
    is_store: bool
    event_idx: int
    src_blocks: tuple[int, ...]
    dst_blocks: tuple[int, ...]

    def describe(self) -> str:
        direction = "store" if self.is_store else "load"
        shown = list(self.src_blocks[:8])
        more = f" and {len(self.src_blocks) - 8} more" if len(self.src_blocks) > 8 else ""
        return f"{direction} event {self.event_idx} (source blocks {shown}{more})"


_COPY = Verdict(copy=True)
_new_tuple = tuple.__new__


def counter_names() -> list[str]:
    names = ["stores_checked", "loads_checked", "refused", "verified", "mismatches", "recopied"]
    return names + [f"violations_{kind.value}" for kind in ViolationKind]


class CopyGuard:
    """Checks each copy before it is handed to the driver and applies the policy."""

    def __init__(
        self,
        policy: GuardPolicy = GuardPolicy.RAISE,
        event_log: StreamEventLog | None = None,
        counters: RuntimeCounters | None = None,
    ) -> None:
        self.policy = GuardPolicy(policy)
        self.event_log = process_event_log() if event_log is None else event_log
        self.counters = RuntimeCounters(counter_names()) if counters is None else counters
        self._last_request: dict[int, int] = {}
        self._lock = threading.Lock()
        self._logged_kinds: set[ViolationKind] = set()
        self._ident = threading.get_ident
        self._next_seq = self.event_log.next_seq
        self._newest_wait = self.event_log.newest_wait
        self._count = self.counters.add

    def open_request(
        self, compute_stream: int, is_store: bool, event_idx: int,
        src_blocks: tuple[int, ...], dst_blocks: tuple[int, ...],
    ) -> CopyRequest:
        """Call on the requesting thread, before recording its compute-done event."""
        thread = self._ident()
        seq = self._next_seq()
        # Only this thread writes its own key, and one dict get or set is atomic: no lock.
        last = self._last_request
        fresh_after = last.get(thread, 0)
        last[thread] = seq
        return _new_tuple(CopyRequest, (  # the named tuple's __new__ without its Python frame
            seq, thread, compute_stream, fresh_after, is_store, event_idx, src_blocks, dst_blocks
        ))

    def find_violation(
        self, request: CopyRequest, transfer_stream: int,
        source_kind: MemoryKind, source_order: SourceOrder,
        waits: Sequence[StreamWait] | None = None,
    ) -> ViolationKind | None:
        """What is wrong with the request's ordering, if anything.

        `waits`: the transfer stream's newest waits, newest first, as `evidence_for` returns
        them; read from the log when not given. Only waits later than the request count.
        """
        if source_kind is MemoryKind.DEVICE and source_order is not SourceOrder.STREAM:
            return ViolationKind.UNSAFE_SOURCE_ORDER
        if waits is None:
            waits = self.event_log.waits_after(transfer_stream, request.seq)
        seq, compute, fresh_after = request.seq, request.compute_stream, request.fresh_after
        seen_wait = stale = False
        for wait in waits:
            if wait.seq <= seq:  # newest first: the rest came before the request
                break
            seen_wait = True
            record = wait.record
            if record is None or record.stream != compute:
                continue
            if record.seq > fresh_after:
                return None
            stale = True
        if not seen_wait:
            return ViolationKind.NO_WAIT
        return ViolationKind.STALE_RECORD if stale else ViolationKind.WAIT_NOT_ON_COMPUTE

    def evidence_for(
        self, requests: Sequence[CopyRequest], transfer_stream: int
    ) -> list[StreamWait]:
        """One read of the log for a group of requests: waits later than the oldest of them."""
        return self.event_log.waits_after(transfer_stream, min([r.seq for r in requests]))

    def check(
        self, request: CopyRequest, transfer_stream: int,
        source_kind: MemoryKind, source_order: SourceOrder,
        waits: Sequence[StreamWait] | None = None,
    ) -> Verdict:
        """Copy if ordered (or under WARN); skip under REFUSE; raise GuardViolation under RAISE.

        `waits`: evidence read once for a group of requests (`evidence_for`); by default the
        log is read for this request alone.
        """
        self.counters.add("stores_checked" if request.is_store else "loads_checked")
        kind = self.find_violation(request, transfer_stream, source_kind, source_order, waits)
        if kind is None:
            return _COPY
        return self.apply_policy(request, transfer_stream, kind)

    def all_ordered(
        self, requests: Sequence[CopyRequest], transfer_stream: int,
        source_kind: MemoryKind, source_order: SourceOrder,
    ) -> bool:
        """True when the transfer stream's newest wait proves every request ordered; then
        they are counted checked. False says nothing: check them with `check_group`.

        The test is `find_violation`'s, with the newest wait as the one witness for all: made
        after every request, on an event whose latest record (as the trace reported it when
        the wait was made) is on each request's compute stream and later than that thread's
        previous request. A group whose barrier waited on one compute stream last passes here
        in O(1) reads of the log; anything else (several compute streams, a missing or stale
        wait) goes through the full search, which names the violation.
        """
        if source_kind is MemoryKind.DEVICE and source_order is not SourceOrder.STREAM:
            return False
        wait = self._newest_wait(transfer_stream)
        if wait is None:
            return False
        record = wait.record
        if record is None:
            return False
        after, stream, recorded = wait.seq, record.stream, record.seq
        for request in requests:
            if (request.seq >= after or request.compute_stream != stream
                    or request.fresh_after >= recorded):
                return False
        self._count("stores_checked" if requests[0].is_store else "loads_checked", len(requests))
        return True

    def check_group(
        self, requests: Sequence[CopyRequest], transfer_stream: int,
        source_kind: MemoryKind, source_order: SourceOrder,
    ) -> list[ViolationKind | None]:
        """`find_violation` for each request on one read of the evidence; counts them checked.

        The caller applies `apply_policy` to each violation (it may raise).
        """
        if self.all_ordered(requests, transfer_stream, source_kind, source_order):
            return [None] * len(requests)
        waits = self.evidence_for(requests, transfer_stream)
        self.counters.add("stores_checked" if requests[0].is_store else "loads_checked",
                          len(requests))
        find = self.find_violation
        return [find(r, transfer_stream, source_kind, source_order, waits) for r in requests]

    def apply_policy(
        self, request: CopyRequest, transfer_stream: int, kind: ViolationKind
    ) -> Verdict:
        """Count a violation, then raise (RAISE), or log once and skip (REFUSE) or copy (WARN)."""
        self.counters.add(f"violations_{kind.value}")
        message = (
            f"kvguard: {request.describe()} on transfer stream {transfer_stream:#x} is not "
            f"ordered behind compute stream {request.compute_stream:#x}: {_EXPLANATIONS[kind]}. "
            f"Fix: {_FIX}."
        )
        if self.policy is GuardPolicy.RAISE:
            raise GuardViolation(kind.value, message)
        if self.policy is GuardPolicy.REFUSE:
            self.counters.add("refused")
        self._log_once(kind, message)
        return Verdict(copy=self.policy is GuardPolicy.WARN, violation=kind)

    def _log_once(self, kind: ViolationKind, message: str) -> None:
        with self._lock:
            if kind in self._logged_kinds:
                return
            self._logged_kinds.add(kind)
        action = "refused" if self.policy is GuardPolicy.REFUSE else "copied anyway"
        logger.warning(
            "%s (%s; further %s violations are only counted)", message, action, kind.value
        )
