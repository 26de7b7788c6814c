"""The guard: before a copy reaches the driver, prove it is ordered behind the compute stream.

The guard owns the barrier's handshake. A request is opened on the thread that asks for the
copy: the guard reads that thread's current stream itself (the compute stream; no caller names
it), notes it and the time, and records an event of its own on that stream (cuEventRecord).
The transfer stream's wait on it is made by the guard too (`wait`, cuStreamWaitEvent), when
the backend asks. Before the copy is issued, the guard looks in its log of those calls for a
wait on the transfer stream, made by itself, on an event it recorded on the request's compute
stream at or after the request. A backend that skips the guard's wait, or orders the transfer
stream some other way, has no such evidence and is caught. The guard also checks that the
source access order the driver will be given fits the source.
"""

from __future__ import annotations

import enum
import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from kvguard.runtime import driver
from kvguard.runtime.counters import RuntimeCounters
from kvguard.runtime.errors import GuardViolation
from kvguard.runtime.evidence import StreamEventLog, StreamWait
from kvguard.runtime.order import MemoryKind, SourceOrder
from kvguard.runtime.streams import current_stream_reader

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
    ViolationKind.NO_WAIT: (
        "the transfer stream made no wait through the guard after the request (a barrier made "
        "another way, such as wait_stream() on the copy thread, is not evidence)"
    ),
    ViolationKind.WAIT_NOT_ON_COMPUTE: (
        "the transfer stream waited only on events recorded on other streams than the "
        "requesting thread's compute stream (waiting on the copy thread's current stream "
        "looks like this)"
    ),
    ViolationKind.STALE_RECORD: (
        "the event waited on was recorded on the compute stream before the request, so it "
        "does not cover the writes since"
    ),
    ViolationKind.UNSAFE_SOURCE_ORDER: (
        "the copy reads GPU memory with a source access order other than STREAM"
    ),
}
_FIX = (
    "wait on the transfer stream, through CopyGuard.wait, on the event the guard recorded for "
    "the request on the requesting thread's compute stream, before the copy, with "
    "srcAccessOrder STREAM for a GPU source"
)


@dataclass(frozen=True)
class Verdict:
    """Whether to hand the copy to the driver, and what was wrong with it, if anything."""

    copy: bool
    violation: ViolationKind | None = None


class CopyRequest(NamedTuple):
    """A copy as requested: when, by which thread, behind which compute stream, and the event
    the guard recorded on that stream for it.

    A tuple, not a dataclass: one is made on the compute thread for every copy.
    """

    seq: int
    thread: int
    compute_stream: int
    event: int  # the guard's compute-done event (raw handle), recorded right after `seq`
    is_store: bool
    event_idx: int
    src_blocks: Sequence[int]  # the caller's lists, kept as given (not copied)
    dst_blocks: Sequence[int]

    def describe(self, destination: bool = False) -> str:
        """Direction, event index and source blocks (the first 8); `destination`: and the
        destination blocks."""
        direction = "store" if self.is_store else "load"
        blocks = f"source blocks {first_of(self.src_blocks)}"
        if destination:
            blocks += f" -> destination blocks {first_of(self.dst_blocks)}"
        return f"{direction} event {self.event_idx} ({blocks})"


def first_of(numbers: Sequence[int]) -> str:
    """The first 8 numbers of a list, and how many more, for a message."""
    more = f" and {len(numbers) - 8} more" if len(numbers) > 8 else ""
    return f"{list(numbers[:8])}{more}"


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
        counters: RuntimeCounters | None = None,
        event_calls: driver.EventCalls | None = None,
        event_log: StreamEventLog | None = None,
        current_stream: Callable[[], int] | None = None,
    ) -> None:
        """`event_calls`: the driver's (resolved at the first request when not given).
        `event_log`: where the handshake's calls are logged (a fresh log when not given).
        `current_stream`: reads the calling thread's current stream (PyTorch's, for the device
        given to `attach`, when not given; the CPU tests give a stand-in)."""
        self.policy = GuardPolicy(policy)
        self.event_log = StreamEventLog() if event_log is None else event_log
        self.counters = RuntimeCounters(counter_names()) if counters is None else counters
        self._calls = event_calls
        self._current_stream = current_stream
        self._device_index: int | None = None
        self._free_events: deque[int] = deque()
        self._events: list[int] = []  # every event made, destroyed by close()
        self._lock = threading.Lock()
        self._logged_kinds: set[ViolationKind] = set()
        self._ident = threading.get_ident
        self._next_seq = self.event_log.next_seq
        self._on_record = self.event_log.on_record
        self._on_wait = self.event_log.on_wait
        self._newest_wait = self.event_log.newest_wait
        self._count = self.counters.add

    @property
    def events_created(self) -> int:
        """Compute-done events made so far (each goes back to a pool once waited on)."""
        return len(self._events)

    def attach(self, device_index: int) -> None:
        """Read requesting threads' current streams on this device (unless a reader was given
        to the constructor). A guard serves one device."""
        if self._device_index is not None and self._device_index != device_index:
            raise ValueError(
                f"this guard is attached to cuda:{self._device_index}, not "
                f"cuda:{device_index}; make a guard per device"
            )
        if self._device_index is None and self._current_stream is None:
            self._current_stream = current_stream_reader(device_index)
        self._device_index = device_index

    def open_request(
        self,
        is_store: bool,
        event_idx: int,
        src_blocks: Sequence[int],
        dst_blocks: Sequence[int],
    ) -> CopyRequest:
        """Call on the requesting thread: note it, read its current stream (the compute
        stream) and record the guard's event on that stream.

        The guard reads the stream itself, so a backend cannot point the barrier at a stream of
        its choosing. The event comes from a pool and goes back with `release` once the
        transfer stream has waited on it.
        """
        read_stream = self._current_stream
        if read_stream is None:
            raise RuntimeError("CopyGuard.attach(device_index) must come before open_request()")
        compute_stream = read_stream()
        calls = self._calls
        if calls is None:
            calls = self._calls = driver.resolve_event_calls()
        seq = self._next_seq()
        try:
            event = self._free_events.pop()
        except IndexError:
            event = self._create_event(calls, compute_stream)
        code = calls.record(event, compute_stream)
        if code == driver.INVALID_CONTEXT and calls.bind(compute_stream) == 0:
            code = calls.record(event, compute_stream)  # a thread new to CUDA: now bound
        if code != 0:
            self._free_events.append(event)
            driver.check(code, "cuEventRecord (the guard's compute-done event)")
        self._on_record(event, compute_stream)
        return _new_tuple(
            CopyRequest,
            (  # the named tuple's __new__ without its Python frame
                seq,
                self._ident(),
                compute_stream,
                event,
                is_store,
                event_idx,
                src_blocks,
                dst_blocks,
            ),
        )

    def wait(self, transfer_stream: int, request: CopyRequest) -> None:
        """The barrier: `transfer_stream` waits on the event recorded for `request` (and so for
        every earlier request on the same compute stream). Logged only once the driver took it."""
        calls = self._calls
        assert calls is not None, "wait() on a request this guard did not open"
        code = calls.wait(transfer_stream, request.event)
        driver.check(code, "cuStreamWaitEvent (the barrier)")
        self._on_wait(request.event, transfer_stream)

    def release(self, request: CopyRequest) -> None:
        """Return the request's event to the pool; call once every wait on it has been made
        (a wait takes the record as it is when made, so a later record cannot change it)."""
        self._free_events.append(request.event)

    def close(self) -> None:
        """Destroy the events made so far; call when no request is in flight."""
        calls = self._calls
        if calls is None:
            return
        failed = 0
        for event in self._events:
            failed += calls.destroy(event) != 0
            self.event_log.on_delete(event)
        if failed:  # at shutdown nothing waits on them any more: reported, not raised
            logger.warning(
                "kvguard: cuEventDestroy failed for %d of the guard's %d events", failed, len(self._events)
            )
        self._events.clear()
        self._free_events.clear()

    def _create_event(self, calls: driver.EventCalls, stream: int) -> int:
        code, event = calls.create()
        if code == driver.INVALID_CONTEXT and calls.bind(stream) == 0:
            code, event = calls.create()  # a thread new to CUDA: bound to the stream's context
        driver.check(code, "cuEventCreate (the guard's compute-done event)")
        with self._lock:
            self._events.append(event)
        return event

    def find_violation(
        self,
        request: CopyRequest,
        transfer_stream: int,
        source_kind: MemoryKind,
        source_order: SourceOrder,
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
        seq, compute = request.seq, request.compute_stream
        seen_wait = stale = False
        for wait in waits:
            if wait.seq <= seq:  # newest first: the rest came before the request
                break
            seen_wait = True
            record = wait.record
            if record is None or record.stream != compute:
                continue
            if record.seq > seq:
                return None
            stale = True
        if not seen_wait:
            return ViolationKind.NO_WAIT
        return ViolationKind.STALE_RECORD if stale else ViolationKind.WAIT_NOT_ON_COMPUTE

    def evidence_for(self, requests: Sequence[CopyRequest], transfer_stream: int) -> list[StreamWait]:
        """One read of the log for a group of requests: waits later than the oldest of them."""
        return self.event_log.waits_after(transfer_stream, min([r.seq for r in requests]))

    def check(
        self,
        request: CopyRequest,
        transfer_stream: int,
        source_kind: MemoryKind,
        source_order: SourceOrder,
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
        self,
        requests: Sequence[CopyRequest],
        transfer_stream: int,
        source_kind: MemoryKind,
        source_order: SourceOrder,
    ) -> bool:
        """True when the transfer stream's newest wait proves every request ordered; then
        they are counted checked. False says nothing: check them with `check_group`.

        The test is `find_violation`'s, with the newest wait as the one witness for all: on an
        event whose latest record when the wait was made is on each request's compute stream
        and later than every request (so the wait is, too). A group whose barrier waited on
        one compute stream last passes here in O(1) reads of the log; anything else (several
        compute streams, a missing or stale wait) goes through the full search, which names
        the violation.
        """
        if source_kind is MemoryKind.DEVICE and source_order is not SourceOrder.STREAM:
            return False
        wait = self._newest_wait(transfer_stream)
        if wait is None:
            return False
        record = wait.record
        if record is None:
            return False
        stream, recorded = record.stream, record.seq
        for request in requests:
            if request.compute_stream != stream or request.seq >= recorded:
                return False
        self._count("stores_checked" if requests[0].is_store else "loads_checked", len(requests))
        return True

    def check_group(
        self,
        requests: Sequence[CopyRequest],
        transfer_stream: int,
        source_kind: MemoryKind,
        source_order: SourceOrder,
    ) -> list[ViolationKind | None]:
        """`find_violation` for each request on one read of the evidence; counts them checked.

        The caller applies `apply_policy` to each violation (it may raise).
        """
        if self.all_ordered(requests, transfer_stream, source_kind, source_order):
            return [None] * len(requests)
        waits = self.evidence_for(requests, transfer_stream)
        self.counters.add("stores_checked" if requests[0].is_store else "loads_checked", len(requests))
        find = self.find_violation
        return [find(r, transfer_stream, source_kind, source_order, waits) for r in requests]

    def apply_policy(self, request: CopyRequest, transfer_stream: int, kind: ViolationKind) -> Verdict:
        """Count a violation, then raise (RAISE), or log once and skip (REFUSE) or copy (WARN).

        A copy kept from the driver (RAISE, REFUSE) is the caller's to refuse (refusals.py
        lists and counts every refusal)."""
        self.counters.add(f"violations_{kind.value}")
        message = (
            f"kvguard: {request.describe()} on transfer stream {transfer_stream:#x} is not "
            f"ordered behind compute stream {request.compute_stream:#x}: {_EXPLANATIONS[kind]}. "
            f"Fix: {_FIX}."
        )
        if self.policy is GuardPolicy.RAISE:
            raise GuardViolation(kind.value, message)
        self._log_once(kind, message)
        return Verdict(copy=self.policy is GuardPolicy.WARN, violation=kind)

    def _log_once(self, kind: ViolationKind, message: str) -> None:
        with self._lock:
            if kind in self._logged_kinds:
                return
            self._logged_kinds.add(kind)
        action = "refused" if self.policy is GuardPolicy.REFUSE else "copied anyway"
        logger.warning("%s (%s; further %s violations are only counted)", message, action, kind.value)
