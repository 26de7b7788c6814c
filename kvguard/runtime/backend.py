"""An ordered, guarded drop-in for the copy backend of vLLM's SimpleCPUOffloadWorker.

Interface (as the worker calls it): `init(gpu_caches, cpu_caches, device, load_stream,
store_stream)` with dicts of per-layer tensors whose first dimension is the block index;
`launch_copy(src_blocks, dst_blocks, is_store, event_idx, events_list, wait_event=None)`, which
never blocks and later appends `(event_idx, completion_event)` to `events_list` in request
order; `shutdown()`.

What it adds: every copy, store or load, is ordered behind the compute stream of the thread
that requested it. At request time the guard records an event on that thread's current stream;
the copy thread has the guard make the transfer stream wait on it (and on the caller's
`wait_event`, when one is given) and the guard checks, from the record and wait it made itself,
that this happened before the copy reaches the driver.

A copy that is refused (guard policy `refuse`, or a verification mismatch that a re-copy did not
fix) gets no completion event and is listed by `refused_copies()`. vLLM's stock worker treats
the newest completed event as covering all earlier ones, so an adapter must drop refused event
indices itself. Errors on the copy thread (a GuardViolation under policy `raise`, a driver
error) are raised on the caller's next `launch_copy()` or `drain()`.
"""

from __future__ import annotations

import ctypes
import logging
import queue
import threading
import time
from array import array
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch

from kvguard.runtime import driver
from kvguard.runtime.batch_copy import BatchCopier, CacheLayout
from kvguard.runtime.driver import CUmemcpyAttributes, resolve_batch_memcpy, result_name
from kvguard.runtime.errors import BatchCopyError, GuardViolation
from kvguard.runtime.guard import CopyGuard, CopyRequest, GuardPolicy
from kvguard.runtime.order import MemoryKind, SourceOrder
from kvguard.runtime.pool import ReusePool
from kvguard.runtime.verify import BlockSampler, plan_rows, row_offsets

logger = logging.getLogger("kvguard.runtime")

EventsList = list[tuple[int, Any]]

# Verification reads sampled host blocks back to the GPU into staging rows (at most this many
# bytes and rows per check), gathers their GPU sources into a second set of rows and compares
# the two there. One check covers the sampled blocks of every group handed over together, up
# to the rows and up to _CHECK_SPAN_BYTES of stored data (its report waits for the newest).
_READBACK_BYTES = 16 << 20
_READBACK_ROWS = 256
_CHECK_SPAN_BYTES = 64 << 20
_CHECK_SLOTS = 64  # checks in flight at once (each has a slot of pinned flags and an event)


@dataclass(frozen=True)
class RefusedCopy:
    """A copy whose blocks were never reported as copied, and why."""

    event_idx: int
    is_store: bool
    src_blocks: tuple[int, ...]
    dst_blocks: tuple[int, ...]
    reason: str


class _Copy(NamedTuple):
    request: CopyRequest  # carries the guard's compute-done event
    caller_event: Any  # the caller's wait_event (torch.cuda.Event or torch.Event), or None
    events_list: EventsList


class _Issued(NamedTuple):
    """Copies issued together, their shared completion event, sampled positions per copy."""

    copies: list[_Copy]
    done: Any  # torch.cuda.Event
    sampled: list[list[int]]


class _InFlight(NamedTuple):
    """A comparison queued on the verify stream; its flags land in pinned slot `slot`."""

    event: Any  # torch.cuda.Event recorded after the flags' copy to the host
    slot: int
    size: int  # rows compared


class _Handoff:
    """A group handed to the verify thread, waiting for its report (in request order)."""

    __slots__ = ("error", "issued", "parts", "refused")

    def __init__(self, issued: _Issued) -> None:
        self.issued = issued
        self.parts = 0  # checks holding some of its sampled blocks, not yet concluded
        self.refused: set[int] = set()  # positions (in issued.copies) that stayed corrupt
        self.error: BaseException | None = None  # a check of it could not be made


class _RowOf(NamedTuple):
    """One sampled block in a check: whose it is, and its source and destination block."""

    handoff: _Handoff
    position: int  # of the copy in handoff.issued.copies
    src: int
    dst: int


class _Check:
    """Sampled blocks of one or more consecutive groups, compared in one go."""

    __slots__ = ("groups", "pending", "rows")

    def __init__(self, rows: list[_RowOf], groups: list[_Handoff], pending: _InFlight) -> None:
        self.rows = rows
        self.groups = groups  # distinct handoffs with rows here, in order
        self.pending = pending


@dataclass(frozen=True)
class _Drain:
    reached: threading.Event


_new_tuple = tuple.__new__  # a named tuple's __new__ without its Python frame


def _new_event() -> Any:
    return torch.cuda.Event()  # type: ignore[no-untyped-call]


def _current_stream_reader(device_index: int) -> Any:
    """A function returning the calling thread's current stream on the device, as a raw handle.

    PyTorch's private `_cuda_getCurrentRawStream` reads it in one call; `current_stream()`
    builds a Stream object per call, so it is only the fallback.
    """
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return lambda: raw(device_index)
    device = torch.device("cuda", device_index)
    return lambda: torch.cuda.current_stream(device).cuda_stream


class OrderedCopyBackend:
    """Copies KV blocks on a background thread, each ordered behind its requester's compute.

    Host cost per copy is kept low four ways. The copy thread takes the requests queued when
    it wakes (same direction, while the group holds fewer than `max_group_blocks` blocks and
    `max_group` requests) and issues them as one group: one wait per compute stream, one guard
    read of the evidence, one `cuMemcpyBatchAsync`, one completion event shared by the group.
    The cap keeps a group small enough that the GPU is not left idle while a large one is
    planned; a single request above it is issued on its own. The guard's compute-done events
    come from its pool and go back once the copy thread has waited on them; the guard records
    and waits with one driver call each, on raw handles. Completion events come from a pool
    too, reused once nothing but the pool references them (the caller dropped them), and are
    then re-recorded with one driver call.

    Verification (opt-in, sampled) never blocks the copy thread: a group with no sampled block
    is reported by the copy thread itself unless an earlier report is still being verified.
    The verify thread packs the sampled blocks of the groups handed over together into one
    check (up to the staging rows and 64 MiB of stored data), queued on its own stream behind
    the newest of their completion events: the host blocks are read back to the GPU (the
    host-to-device direction, which stores do not use) and the GPU sources gathered, one
    driver call each, compared as 64-bit words into preallocated tensors, and one flag per
    block copied to a pinned slot, then an event. Nothing is allocated per check. Reports
    stay in request order: the verify thread reports from the front of its queue, polls the
    oldest check's event, and blocks on it only when no new group is waiting to be started.
    """

    max_group = 256  # requests per copy-thread wake-up; 1 issues each request on its own
    max_group_blocks = 256  # merge requests only while a group holds fewer blocks than this

    def __init__(
        self,
        policy: GuardPolicy = GuardPolicy.RAISE,
        verify_fraction: float = 0.0,
        verify_seed: int | None = None,
    ) -> None:
        self._guard = self._make_guard(GuardPolicy(policy))
        self._sampler = BlockSampler(verify_fraction, verify_seed) if verify_fraction else None
        self._store_copier: BatchCopier | None = None
        self._load_copier: BatchCopier | None = None
        self._queue: queue.SimpleQueue[_Copy | _Drain | None] = queue.SimpleQueue()
        self._reports: queue.SimpleQueue[_Issued | _Drain | None] | None = None
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._errors: list[BaseException] = []
        self._refused: list[RefusedCopy] = []
        self._closed = False
        self._done_events: ReusePool[Any] = ReusePool(_new_event)
        self._raw_record: Any = None  # cuEventRecord on raw handles, for completion events
        self._current_stream: Any = None  # the calling thread's current stream, as a handle
        self._handed_off = 0  # reports given to the verify thread (written by the copy thread)
        self._reported = 0  # of those, reported or refused (written by the verify thread)
        # Verify thread's own figures (read them after drain()): checks made, host waits for a
        # check, groups per check, CPU seconds spent queuing checks.
        self.verify_stats = {"checks": 0, "waits": 0, "groups": 0, "start_cpu_s": 0.0}

    def _make_guard(self, policy: GuardPolicy) -> CopyGuard:
        return CopyGuard(policy)

    @property
    def counters(self) -> dict[str, int]:
        """Stores and loads checked, violations by kind, refused, verified, mismatches, recopied."""
        return self._guard.counters.as_dict()

    @property
    def completion_events_created(self) -> int:
        """Completion events made so far (the other groups reused one the caller had dropped)."""
        return self._done_events.created

    def init(
        self,
        gpu_caches: Mapping[str, torch.Tensor],
        cpu_caches: Mapping[str, torch.Tensor],
        device: torch.device,
        load_stream: torch.cuda.Stream,
        store_stream: torch.cuda.Stream,
    ) -> None:
        if self._threads:
            raise RuntimeError("init() was already called on this backend")
        self._store_copier = BatchCopier(gpu_caches, cpu_caches, store_stream)
        if self._store_copier.source_kind is not MemoryKind.DEVICE:
            raise ValueError("gpu_caches must hold CUDA tensors and cpu_caches pinned host ones")
        self._load_copier = BatchCopier(cpu_caches, gpu_caches, load_stream)
        self._gpu_caches = dict(gpu_caches)
        self._cpu_caches = dict(cpu_caches)
        device = torch.device(device)
        # Threads need an explicit index: "cuda" alone means the current device of each thread.
        index = torch.cuda.current_device() if device.index is None else device.index
        self._device = torch.device("cuda", index)
        self._device_index = index
        self._current_stream = _current_stream_reader(index)
        self._raw_record = driver.resolve_event_calls().record
        threads = [threading.Thread(target=self._copy_thread, name="kvguard-copy", daemon=True)]
        if self._sampler is not None:
            self._reports = queue.SimpleQueue()
            self._init_verification()
            threads.append(
                threading.Thread(target=self._verify_thread, name="kvguard-verify", daemon=True)
            )
        self._threads = threads
        for thread in threads:
            thread.start()

    def launch_copy(
        self,
        src_blocks: Sequence[int],
        dst_blocks: Sequence[int],
        is_store: bool,
        event_idx: int,
        events_list: EventsList,
        wait_event: Any = None,
    ) -> None:
        """Queue a copy; on this thread, the guard notes the compute stream and records on it."""
        if self._errors:
            self._raise_pending()
        if not self._threads or self._closed:
            raise RuntimeError("launch_copy() needs init() first and cannot follow shutdown()")
        if len(src_blocks) != len(dst_blocks):
            raise ValueError(
                f"{len(src_blocks)} source blocks but {len(dst_blocks)} destination blocks"
            )
        request = self._guard.open_request(
            self._current_stream(), is_store, event_idx, tuple(src_blocks), tuple(dst_blocks)
        )
        self._queue.put(_new_tuple(_Copy, (request, wait_event, events_list)))

    def drain(self) -> None:
        """Block until every queued copy was issued and reported; raise any copy-thread error."""
        if self._threads and not self._closed:
            marker = _Drain(threading.Event())
            self._queue.put(marker)
            while not marker.reached.wait(0.05):
                if not all(thread.is_alive() for thread in self._threads):
                    self._raise_pending()
                    raise RuntimeError("a kvguard copy thread has stopped; see the log")
        self._raise_pending()

    def refused_copies(self) -> list[RefusedCopy]:
        """Copies refused since the last call (each is returned once)."""
        with self._lock:
            refused, self._refused = self._refused, []
        return refused

    def shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout=10.0)
        if not any(thread.is_alive() for thread in self._threads):
            self._guard.close()  # no request is in flight any more
        with self._lock:
            for error in self._errors:
                logger.error("kvguard copy thread error not raised before shutdown: %s", error)
            self._errors.clear()

    # The copy thread.

    def _copy_thread(self) -> None:
        try:
            torch.cuda.set_device(self._device)
        except Exception as exc:
            self._fail(exc)
            raise
        self._copy_loop()

    def _copy_loop(self) -> None:
        """Issue queued requests in groups, in request order, until shutdown's None."""
        get, empty = self._queue.get, self._queue.empty
        limit, block_limit = max(1, self.max_group), max(1, self.max_group_blocks)
        item = get()
        while item is not None:
            if isinstance(item, _Drain):
                if self._reports is None:
                    item.reached.set()
                else:  # reached once everything before it was verified and reported
                    self._reports.put(item)
                item = get()
                continue
            group = [item]
            is_store = item.request.is_store
            blocks = len(item.request.src_blocks)
            carried = False  # whether `item` already holds the next round's first entry
            # Only this thread takes from the queue, so a non-empty queue has an entry to get.
            while blocks < block_limit and len(group) < limit and not empty():
                item = get()
                if (
                    isinstance(item, _Copy) and item.request.is_store is is_store
                    and blocks + len(item.request.src_blocks) <= block_limit
                ):
                    group.append(item)
                    blocks += len(item.request.src_blocks)
                else:  # a marker, the other direction or a request past the cap: next round
                    carried = True
                    break
            try:
                self._issue(group)
            except Exception as exc:  # surfaced to the caller on its next call
                self._fail(exc)
            if not carried:
                item = get()
        if self._reports is not None:
            self._reports.put(None)

    def _issue(self, group: list[_Copy]) -> None:
        copier = self._store_copier if group[0].request.is_store else self._load_copier
        assert copier is not None
        stream = copier.stream
        guard = self._guard
        if len(group) == 1:
            copy = group[0]
            self._wait_for_compute(stream, copy.request)
            if copy.caller_event is not None:
                stream.wait_event(copy.caller_event)
            guard.release(copy.request)
        else:
            # The barrier: the guard's newest event per compute stream covers the older ones
            # (recorded on that stream after them); a caller's event is waited on as given,
            # once if several requests passed the same one.
            newest: dict[int, CopyRequest] = {}
            caller_events: dict[int, Any] = {}
            for copy in group:
                newest[copy.request.compute_stream] = copy.request
                if copy.caller_event is not None:
                    caller_events[id(copy.caller_event)] = copy.caller_event
            for request in newest.values():
                self._wait_for_compute(stream, request)
            for event in caller_events.values():
                stream.wait_event(event)
            release = guard.release
            for copy in group:
                release(copy.request)
        ok = self._check(group, copier)
        if not ok:
            return
        src_blocks: Sequence[int]
        dst_blocks: Sequence[int]
        if len(ok) == 1:
            src_blocks, dst_blocks = ok[0].request.src_blocks, ok[0].request.dst_blocks
        else:
            src_blocks = [b for copy in ok for b in copy.request.src_blocks]
            dst_blocks = [b for copy in ok for b in copy.request.dst_blocks]
        self._issue_copy(copier, src_blocks, dst_blocks)
        done = self._done_events.take()
        self._record_done(done, stream)
        self._report_or_hand_off(ok, done)

    def _record_done(self, done: Any, stream: torch.cuda.Stream) -> None:
        """Record a completion event on the transfer stream.

        An event PyTorch has already created (every reused one) is re-recorded with the
        driver's cuEventRecord on raw handles, which skips PyTorch's per-call Python work.
        Should the driver refuse (it never has), PyTorch's record is used from then on.
        """
        record = self._raw_record
        if record is not None:
            handle = done.cuda_event
            if handle:
                code = record(handle, stream.cuda_stream)
                if code == 0:
                    return
                self._raw_record = None
                logger.warning("kvguard: cuEventRecord returned %d; using PyTorch's record", code)
        done.record(stream)

    def _check(self, group: list[_Copy], copier: BatchCopier) -> list[_Copy]:
        """The guard, once per request, on one read of the evidence; returns what may copy."""
        guard, transfer = self._guard, copier.stream.cuda_stream
        requests = [copy.request for copy in group]
        if guard.all_ordered(requests, transfer, copier.source_kind, copier.source_order):
            return group  # the common case: the barrier's wait alone proves the group ordered
        kinds = guard.check_group(requests, transfer, copier.source_kind, copier.source_order)
        if all(kind is None for kind in kinds):
            return group
        ok = []
        for copy, kind in zip(group, kinds, strict=True):
            if kind is None:
                ok.append(copy)
                continue
            try:
                verdict = guard.apply_policy(copy.request, transfer, kind)
            except GuardViolation as exc:  # policy raise: this copy never reaches the driver
                self._fail(exc)
                continue
            if verdict.copy:
                ok.append(copy)
            else:
                self._refuse(copy.request, kind.value)
        return ok

    def _report_or_hand_off(self, ok: list[_Copy], done: Any) -> None:
        sampler = self._sampler
        sampled: list[list[int]] = []
        if sampler is not None and ok[0].request.is_store:
            sampled = [sampler.sample(len(copy.request.src_blocks)) for copy in ok]
        if self._reports is None or (
            self._handed_off == self._reported and not any(sampled)
        ):  # nothing ahead of it is still being verified: report in order right here
            for copy in ok:
                copy.events_list.append((copy.request.event_idx, done))
            return
        self._handed_off += 1
        self._reports.put(_Issued(ok, done, sampled))

    def _wait_for_compute(self, transfer_stream: torch.cuda.Stream, request: CopyRequest) -> None:
        """The barrier: the transfer stream waits, through the guard, on the event the guard
        recorded on the requester's compute stream for `request`."""
        self._guard.wait(transfer_stream.cuda_stream, request)

    def _issue_copy(
        self, copier: BatchCopier, src_blocks: Sequence[int], dst_blocks: Sequence[int]
    ) -> None:
        copier.copy(src_blocks, dst_blocks)

    # The verification thread (only with verify_fraction > 0): reports stay in request order.

    def _init_verification(self) -> None:
        self._verify_stream = torch.cuda.Stream(self._device)  # type: ignore[no-untyped-call]
        first = next(iter(self._gpu_caches.values()))
        self._cache_device = first.device
        self._pinned = first.device.type == "cuda"
        self._gpu_layout = CacheLayout.of(self._gpu_caches)
        self._cpu_layout = CacheLayout.of(self._cpu_caches)
        self._offsets, self._row_bytes = row_offsets(self._gpu_layout.block_bytes)
        rows = max(1, min(_READBACK_ROWS, _READBACK_BYTES // self._row_bytes))
        self._check_rows = rows
        # Allocated (and zeroed) on the verify stream, which is the only one that uses them: the
        # padding bytes at the end of a row are never written, so they stay equal.
        with torch.cuda.stream(self._verify_stream):
            self._read_rows = torch.zeros(
                (rows, self._row_bytes), dtype=torch.uint8, device=self._cache_device)
            self._source_rows = torch.zeros_like(self._read_rows)
            self._differs = torch.empty(
                (rows, self._row_bytes // 8), dtype=torch.bool, device=self._cache_device)
            self._row_flags = torch.zeros(rows, dtype=torch.bool, device=self._cache_device)
        self._read_words = self._read_rows.view(torch.int64)
        self._source_words = self._source_rows.view(torch.int64)
        # One slot of host flags per check in flight, plus one for re-checks after a re-copy.
        self._host_flags = torch.zeros(
            (_CHECK_SLOTS + 1, rows), dtype=torch.bool, pin_memory=self._pinned)
        self._check_events = [_new_event() for _ in range(_CHECK_SLOTS + 1)]
        self._free_slots: deque[int] = deque(range(_CHECK_SLOTS))
        self._recheck_slot = _CHECK_SLOTS
        self._inflight: deque[_Check] = deque()
        # Rows are copied with the same driver call as stores, in stream order (STREAM): the
        # read-back must not start before the verify stream's wait on the store's completion.
        self._rows_entry = resolve_batch_memcpy()
        self._stream_order = CUmemcpyAttributes(srcAccessOrder=int(SourceOrder.STREAM))
        self._gather_by_driver = True  # GPU sources gathered by the driver (else index_select)

    def _verify_thread(self) -> None:
        try:
            torch.cuda.set_device(self._device)
        except Exception as exc:
            self._fail(exc)
            raise
        # Every PyTorch operation of this thread (the comparison) runs on the verify stream.
        with torch.cuda.stream(self._verify_stream):
            self._verify_loop()

    def _verify_loop(self) -> None:
        """Report handed-off groups in order; start checks as groups arrive, wait only for the
        oldest one, and only when nothing new has arrived to be started first."""
        reports = self._reports
        assert reports is not None
        pending: deque[_Handoff | _Drain] = deque()
        stop = False
        item: _Issued | _Drain | None = None
        check: _Check | None = None
        while True:
            arrived: list[_Handoff] = []
            if not pending and not stop:
                item = reports.get()
                stop = self._take(item, pending, arrived)
            while not stop and not reports.empty():
                stop = self._take(reports.get(), pending, arrived)
            if arrived:
                self._start_checks(arrived)
            while pending:
                head = pending[0]
                if isinstance(head, _Drain):
                    pending.popleft()
                    head.reached.set()
                    continue
                if head.parts:  # its (oldest) check is still in flight
                    check = self._inflight[0]
                    if not check.pending.event.query():
                        if not stop and not reports.empty():
                            break  # start what has arrived before waiting
                        self.verify_stats["waits"] += 1
                    self._conclude_oldest()
                    continue
                pending.popleft()
                try:
                    self._report(head)
                except Exception as exc:  # surfaced to the caller on its next call
                    self._fail(exc)
                finally:
                    self._reported += 1
                del head  # let go of its completion event, so that the pool may reuse it
            if stop and not pending:
                return
            # Let go of reported groups' completion events, so that the pool may reuse them.
            item, check, arrived = None, None, []

    def _take(self, item: _Issued | _Drain | None, pending: deque[_Handoff | _Drain],
              arrived: list[_Handoff]) -> bool:
        """Queue one arrival for reporting; True for shutdown's None (nothing comes after)."""
        if item is None:
            return True
        if isinstance(item, _Drain):
            pending.append(item)
            return False
        handoff = _Handoff(item)
        pending.append(handoff)
        if any(item.sampled):
            arrived.append(handoff)
        return False

    def _start_checks(self, handoffs: list[_Handoff]) -> None:
        """Pack the sampled blocks of consecutive groups into checks and queue them."""
        began = time.thread_time()
        limit, span_limit = self._check_rows, _CHECK_SPAN_BYTES
        block_bytes = sum(self._gpu_layout.block_bytes)
        rows: list[_RowOf] = []
        groups: list[_Handoff] = []
        span = 0
        for handoff in handoffs:
            issued = handoff.issued
            size = block_bytes * sum(len(copy.request.src_blocks) for copy in issued.copies)
            if rows and span + size > span_limit:
                self._queue_check(rows, groups)
                rows, groups, span = [], [], 0
            span += size
            for position, (copy, picked) in enumerate(zip(issued.copies, issued.sampled,
                                                          strict=True)):
                src_blocks, dst_blocks = copy.request.src_blocks, copy.request.dst_blocks
                for i in picked:
                    if len(rows) == limit:
                        self._queue_check(rows, groups)
                        rows, groups, span = [], [], size
                    if not groups or groups[-1] is not handoff:
                        groups.append(handoff)
                    rows.append(_new_tuple(_RowOf, (handoff, position, src_blocks[i],
                                                    dst_blocks[i])))
        if rows:
            self._queue_check(rows, groups)
        self.verify_stats["start_cpu_s"] += time.thread_time() - began

    def _queue_check(self, rows: list[_RowOf], groups: list[_Handoff]) -> None:
        """Queue one check behind the newest of its groups' completion events (all of them are
        recorded on the store stream, in this order, so the newest covers the others)."""
        while not self._free_slots:  # every slot in flight: the oldest check must finish first
            self.verify_stats["waits"] += 1
            self._conclude_oldest()
        for handoff in groups:
            handoff.parts += 1
        slot = self._free_slots.popleft()
        try:
            pending = self._start_check(
                [row.src for row in rows], [row.dst for row in rows], groups[-1].issued.done,
                slot,
            )
        except Exception as exc:  # never reported: these groups are refused
            self._free_slots.append(slot)
            for handoff in groups:
                handoff.parts -= 1
                if handoff.error is None:
                    handoff.error = exc
            return
        self._inflight.append(_Check(rows, groups, pending))
        self.verify_stats["checks"] += 1
        self.verify_stats["groups"] += len(groups)

    def _conclude_oldest(self) -> None:
        """Wait for the oldest check; re-copy mismatches once; mark blocks that still differ."""
        check = self._inflight.popleft()
        try:
            bad = self._finish_check(check.pending)
            self._guard.counters.add("verified", len(check.rows))
            if bad:
                self._recopy([check.rows[i] for i in bad])
        except Exception as exc:  # never report what could not be verified
            for handoff in check.groups:
                if handoff.error is None:
                    handoff.error = exc
        finally:
            self._free_slots.append(check.pending.slot)
            for handoff in check.groups:
                handoff.parts -= 1

    def _recopy(self, bad: list[_RowOf]) -> None:
        """Re-copy differing blocks behind a device synchronize, compare again, refuse the rest."""
        self._guard.counters.add("mismatches", len(bad))
        bad_src, bad_dst = [row.src for row in bad], [row.dst for row in bad]
        first = bad[0]
        logger.warning(
            "kvguard: %s: %d verified blocks differ from their GPU source (source blocks %s); "
            "re-copying them behind a device synchronize",
            first.handoff.issued.copies[first.position].request.describe(), len(bad),
            bad_src[:8],
        )
        # A host-blocking device synchronize orders the re-copy after every stream's writes.
        torch.cuda.synchronize(self._device)
        assert self._store_copier is not None
        self._issue_copy(self._store_copier, bad_src, bad_dst)
        self._store_copier.stream.synchronize()
        self._guard.counters.add("recopied", len(bad))
        still_bad = self._finish_check(
            self._start_check(bad_src, bad_dst, None, self._recheck_slot))
        for i in still_bad:
            bad[i].handoff.refused.add(bad[i].position)

    def _report(self, handoff: _Handoff) -> None:
        issued = handoff.issued
        if handoff.error is not None:  # never report what could not be verified
            for copy in issued.copies:
                self._refuse(copy.request, "verification_error")
            raise handoff.error
        refused = handoff.refused
        for position, copy in enumerate(issued.copies):
            if refused and position in refused:
                self._refuse(copy.request, "verification_mismatch")
            else:
                copy.events_list.append((copy.request.event_idx, issued.done))

    def _start_check(self, src: list[int], dst: list[int], after: Any, slot: int) -> _InFlight:
        """Queue, on the verify stream, the comparison of host blocks `dst` with GPU blocks `src`.

        `after`: the newest store completion event the blocks depend on, or None when the
        copies are known complete. Behind it, the host blocks are read back into staging rows
        and their GPU sources gathered into a second set (two driver calls), the rows compared
        as 64-bit words (two PyTorch calls, into preallocated tensors), and one flag per row
        copied to pinned slot `slot`, followed by the slot's event. The source is read as the
        store read it (the scheduler holds source blocks until the store is reported). Nothing
        here waits or allocates.
        """
        stream = self._verify_stream
        count = len(src)
        if after is not None:
            stream.wait_event(after)
        self._copy_rows(self._cpu_layout, dst, self._read_rows, "read-back of host blocks")
        self._gather_sources(src)
        torch.ne(self._read_words[:count], self._source_words[:count],
                 out=self._differs[:count])
        torch.any(self._differs[:count], dim=1, out=self._row_flags[:count])
        self._rows_copy(
            [self._host_flags.data_ptr() + slot * self._check_rows], [self._row_flags.data_ptr()],
            [count], "flags to the host",
        )
        event = self._check_events[slot]
        self._record_done(event, stream)
        return _InFlight(event, slot, count)

    def _copy_rows(self, layout: CacheLayout, blocks: list[int], rows: torch.Tensor,
                   what: str, check: bool = True) -> int:
        """Blocks `blocks` of every tensor of `layout` into rows 0.. of `rows` (one driver call)."""
        dsts, srcs, sizes = plan_rows(layout.base_addresses, layout.block_bytes, self._offsets,
                                      blocks, rows.data_ptr(), self._row_bytes)
        return self._rows_copy(dsts, srcs, sizes, what, check)

    def _rows_copy(self, dsts: Any, srcs: Any, sizes: Any, what: str, check: bool = True) -> int:
        """One cuMemcpyBatchAsync on the verify stream, in stream order; its CUresult."""
        if not isinstance(sizes, array):
            dsts, srcs, sizes = array("q", dsts), array("q", srcs), array("q", sizes)
        code, _ = self._rows_entry(
            dsts.buffer_info()[0], srcs.buffer_info()[0], sizes.buffer_info()[0], len(sizes),
            self._stream_order, self._verify_stream.cuda_stream,
        )
        if code != 0 and check:
            name, detail = result_name(code)
            raise BatchCopyError(code, name, detail, f"verification {what} ({len(sizes)} copies)")
        return int(code)

    def _gather_sources(self, src: list[int]) -> None:
        """GPU source blocks into the source rows: one driver call, or index_select per tensor
        should the driver refuse a device-to-device batch (it is not known to)."""
        if self._gather_by_driver:
            code = self._copy_rows(self._gpu_layout, src, self._source_rows, "gather", False)
            if code == 0:
                return
            self._gather_by_driver = False
            logger.warning(
                "kvguard: cuMemcpyBatchAsync refused a device-to-device gather (%s); "
                "verification gathers with index_select from now on", result_name(code)[0])
        count = len(src)
        index = torch.tensor(src, dtype=torch.int64, pin_memory=self._pinned).to(
            self._cache_device, non_blocking=True)
        for tensor, offset, size in zip(self._gpu_caches.values(), self._offsets,
                                        self._gpu_layout.block_bytes, strict=True):
            rows = tensor.reshape(tensor.shape[0], -1).view(torch.uint8)
            # GPU to GPU, on the verify stream, behind `after` (or the re-check's synchronize),
            # into staging rows no other stream touches.
            gathered = rows.index_select(0, index)
            staged = self._source_rows[:count, offset:offset + size]
            staged.copy_(gathered)  # kvguard: ignore[KVG001, KVG004]

    def _finish_check(self, pending: _InFlight) -> list[int]:
        """Wait for a queued comparison; the positions (in its src/dst) whose blocks differ."""
        pending.event.synchronize()
        flags = ctypes.string_at(
            self._host_flags.data_ptr() + pending.slot * self._check_rows, pending.size)
        if b"\x01" not in flags:
            return []
        return [position for position, differs in enumerate(flags) if differs]

    # Shared by both threads.

    def _refuse(self, request: CopyRequest, reason: str) -> None:
        if reason.startswith("verification_"):
            self._guard.counters.add("refused")
        with self._lock:
            self._refused.append(
                RefusedCopy(
                    request.event_idx, request.is_store, request.src_blocks,
                    request.dst_blocks, reason,
                )
            )

    def _fail(self, error: BaseException) -> None:
        with self._lock:
            self._errors.append(error)

    def _raise_pending(self) -> None:
        with self._lock:
            error = self._errors.pop(0) if self._errors else None
        if error is not None:
            raise error
