"""An ordered, guarded drop-in for the copy backend of vLLM's SimpleCPUOffloadWorker.

Interface (as the worker calls it): `init(gpu_caches, cpu_caches, device, load_stream,
store_stream)` with dicts of per-layer tensors whose first dimension is the block index;
`launch_copy(src_blocks, dst_blocks, is_store, event_idx, events_list, wait_event=None)`, which
never blocks and later appends `(event_idx, completion_event)` to `events_list` in request
order; `shutdown()`.

What it adds: every copy, store or load, is ordered behind the compute stream of the thread
that requested it. That thread's `wait_event`, or an event this backend records on its current
stream at request time, is waited on on the transfer stream by the copy thread, and the guard
checks from its own evidence that this happened before the copy reaches the driver.

A copy that is refused (guard policy `refuse`, or a verification mismatch that a re-copy did not
fix) gets no completion event and is listed by `refused_copies()`. vLLM's stock worker treats
the newest completed event as covering all earlier ones, so an adapter must drop refused event
indices itself. Errors on the copy thread (a GuardViolation under policy `raise`, a driver
error) are raised on the caller's next `launch_copy()` or `drain()`.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch

from kvguard.runtime.batch_copy import BatchCopier
from kvguard.runtime.errors import GuardViolation
from kvguard.runtime.guard import CopyGuard, CopyRequest, GuardPolicy
from kvguard.runtime.order import MemoryKind
from kvguard.runtime.verify import BlockSampler, mismatched_rows

logger = logging.getLogger("kvguard.runtime")

EventsList = list[tuple[int, Any]]


@dataclass(frozen=True)
class RefusedCopy:
    """A copy whose blocks were never reported as copied, and why."""

    event_idx: int
    is_store: bool
    src_blocks: tuple[int, ...]
    dst_blocks: tuple[int, ...]
    reason: str


class _Copy(NamedTuple):
    request: CopyRequest
    compute_done: Any  # torch.cuda.Event or torch.Event recorded on the compute stream
    events_list: EventsList
    pool: deque[Any] | None  # where compute_done goes back once waited on (backend-owned)


class _Issued(NamedTuple):
    """Copies issued together, their shared completion event, sampled positions per copy."""

    copies: list[_Copy]
    done: torch.cuda.Event
    sampled: list[list[int]]


@dataclass(frozen=True)
class _Drain:
    reached: threading.Event


class OrderedCopyBackend:
    """Copies KV blocks on a background thread, each ordered behind its requester's compute.

    Host cost per copy is kept low three ways. The copy thread takes every request queued when
    it wakes (up to `max_group`, same direction) and issues them as one group: one wait per
    compute stream, one guard read of the evidence, one `cuMemcpyBatchAsync`, one completion
    event shared by the group. The compute-done events this backend records come from a pool
    per compute stream and go back to it once the copy thread has waited on them, so they are
    not created and destroyed per copy. Verification never blocks the copy thread: a group
    with no sampled block is reported by the copy thread itself unless an earlier report is
    still being verified.
    """

    max_group = 256  # requests per copy-thread wake-up; 1 issues each request on its own

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
        self._event_pools: dict[int, deque[Any]] = {}
        self._handed_off = 0  # reports given to the verify thread (written by the copy thread)
        self._reported = 0  # of those, reported or refused (written by the verify thread)

    def _make_guard(self, policy: GuardPolicy) -> CopyGuard:
        return CopyGuard(policy)

    @property
    def counters(self) -> dict[str, int]:
        """Stores and loads checked, violations by kind, refused, verified, mismatches, recopied."""
        return self._guard.counters.as_dict()

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
        threads = [threading.Thread(target=self._copy_loop, name="kvguard-copy", daemon=True)]
        if self._sampler is not None:
            self._reports = queue.SimpleQueue()
            self._verify_stream = torch.cuda.Stream(self._device)  # type: ignore[no-untyped-call]
            threads.append(
                threading.Thread(target=self._report_loop, name="kvguard-verify", daemon=True)
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
        """Queue a copy; on this thread, note the compute stream and (if needed) record on it."""
        if self._errors:
            self._raise_pending()
        if not self._threads or self._closed:
            raise RuntimeError("launch_copy() needs init() first and cannot follow shutdown()")
        if len(src_blocks) != len(dst_blocks):
            raise ValueError(
                f"{len(src_blocks)} source blocks but {len(dst_blocks)} destination blocks"
            )
        compute = torch.cuda.current_stream(self._device)
        handle = compute.cuda_stream
        request = self._guard.open_request(
            handle, is_store, event_idx, tuple(src_blocks), tuple(dst_blocks)
        )
        pool = None
        if wait_event is None:  # the older worker shape: take the barrier's event here
            pool = self._event_pools.get(handle)
            if pool is None:
                pool = self._event_pools.setdefault(handle, deque())
            try:
                wait_event = pool.pop()
            except IndexError:
                wait_event = torch.cuda.Event()  # type: ignore[no-untyped-call]
            wait_event.record(compute)
        self._queue.put(_Copy(request, wait_event, events_list, pool))

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
        with self._lock:
            for error in self._errors:
                logger.error("kvguard copy thread error not raised before shutdown: %s", error)
            self._errors.clear()

    # The copy thread.

    def _copy_loop(self) -> None:
        try:
            torch.cuda.set_device(self._device)
        except Exception as exc:
            self._fail(exc)
            raise
        get, empty, limit = self._queue.get, self._queue.empty, max(1, self.max_group)
        item = get()
        while item is not None:
            if isinstance(item, _Drain):
                if self._reports is None:
                    item.reached.set()
                else:
                    self._reports.put(item)
                item = get()
                continue
            group = [item]
            is_store = item.request.is_store
            item = None
            while len(group) < limit and not empty():  # only this thread takes from the queue
                nxt = get()
                if isinstance(nxt, _Copy) and nxt.request.is_store is is_store:
                    group.append(nxt)
                else:  # a marker or the other direction: it starts the next round
                    item = nxt
                    break
            try:
                self._issue(group)
            except Exception as exc:  # surfaced to the caller on its next call
                self._fail(exc)
            if item is None:
                item = get()
        if self._reports is not None:
            self._reports.put(None)

    def _issue(self, group: list[_Copy]) -> None:
        is_store = group[0].request.is_store
        copier = self._store_copier if is_store else self._load_copier
        assert copier is not None
        stream = copier.stream
        # The barrier: for the backend's own events, the newest per compute stream covers the
        # older ones (recorded on that stream after them); a caller's event is waited on as is.
        barriers: dict[Any, Any] = {}
        for copy in group:
            key = copy.request.compute_stream if copy.pool is not None else id(copy.compute_done)
            barriers.pop(key, None)
            barriers[key] = copy.compute_done
        for compute_done in barriers.values():
            self._wait_for_compute(stream, compute_done)
        for copy in group:  # waited on: the pool may record them again
            if copy.pool is not None:
                copy.pool.append(copy.compute_done)
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
        done = torch.cuda.Event()  # type: ignore[no-untyped-call]
        done.record(stream)
        self._report_or_hand_off(ok, done)

    def _check(self, group: list[_Copy], copier: BatchCopier) -> list[_Copy]:
        """The guard, once per request, on one read of the evidence; returns what may copy."""
        guard, transfer = self._guard, copier.stream.cuda_stream
        kind, order = copier.source_kind, copier.source_order
        waits = guard.evidence_for([copy.request for copy in group], transfer)
        ok = []
        for copy in group:
            try:
                verdict = guard.check(copy.request, transfer, kind, order, waits)
            except GuardViolation as exc:  # policy raise: this copy never reaches the driver
                self._fail(exc)
                continue
            if verdict.copy:
                ok.append(copy)
            else:
                assert verdict.violation is not None
                self._refuse(copy.request, verdict.violation.value)
        return ok

    def _report_or_hand_off(self, ok: list[_Copy], done: torch.cuda.Event) -> None:
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

    def _wait_for_compute(self, transfer_stream: torch.cuda.Stream, compute_done: Any) -> None:
        """The barrier: the transfer stream waits for the requester's compute stream."""
        transfer_stream.wait_event(compute_done)

    def _issue_copy(
        self, copier: BatchCopier, src_blocks: Sequence[int], dst_blocks: Sequence[int]
    ) -> None:
        copier.copy(src_blocks, dst_blocks)

    # The verification thread (only with verify_fraction > 0): reports stay in request order.

    def _report_loop(self) -> None:
        try:
            torch.cuda.set_device(self._device)
        except Exception as exc:
            self._fail(exc)
            raise
        assert self._reports is not None
        while (item := self._reports.get()) is not None:
            if isinstance(item, _Drain):
                item.reached.set()
                continue
            try:
                self._report(item)
            except Exception as exc:  # surfaced to the caller on its next call
                self._fail(exc)
            finally:
                self._reported += 1

    def _report(self, issued: _Issued) -> None:
        refused: set[int] = set()
        if any(issued.sampled):
            refused = self._verify(issued)
        for position, copy in enumerate(issued.copies):
            if position in refused:
                self._refuse(copy.request, "verification_mismatch")
            else:
                copy.events_list.append((copy.request.event_idx, issued.done))

    def _verify(self, issued: _Issued) -> set[int]:
        """Compare sampled stored blocks with their GPU source; re-copy mismatches once.

        Returns the positions (in the group) of copies whose blocks still differ.
        """
        owner, src, dst = [], [], []
        for position, (copy, picked) in enumerate(zip(issued.copies, issued.sampled, strict=True)):
            for i in picked:
                owner.append(position)
                src.append(copy.request.src_blocks[i])
                dst.append(copy.request.dst_blocks[i])
        bad = self._mismatched(src, dst, issued.done)
        self._guard.counters.add("verified", len(src))
        if not bad:
            return set()
        self._guard.counters.add("mismatches", len(bad))
        bad_src, bad_dst = [src[i] for i in bad], [dst[i] for i in bad]
        logger.warning(
            "kvguard: %s: %d of %d verified blocks differ from their GPU source (source "
            "blocks %s); re-copying them behind a device synchronize",
            issued.copies[owner[bad[0]]].request.describe(), len(bad), len(src), bad_src[:8],
        )
        # A host-blocking device synchronize orders the re-copy after every stream's writes.
        torch.cuda.synchronize(self._device)
        assert self._store_copier is not None
        self._issue_copy(self._store_copier, bad_src, bad_dst)
        self._store_copier.stream.synchronize()
        self._guard.counters.add("recopied", len(bad))
        still_bad = self._mismatched(bad_src, bad_dst, None)
        return {owner[bad[i]] for i in still_bad}

    def _mismatched(self, src: list[int], dst: list[int], after: Any) -> list[int]:
        """Positions in src/dst whose host copy differs from the GPU source in any tensor.

        `after`: the store's completion event. The read-back runs on the verify stream behind
        it, so the host copy is complete when it is compared and the source is read as the
        store read it (the scheduler holds the source blocks until the store is reported).
        """
        with torch.cuda.stream(self._verify_stream):
            if after is not None:
                self._verify_stream.wait_event(after)
            src_index = torch.tensor(src, dtype=torch.int64).to(self._device, non_blocking=True)
            sources = {}
            for name, gpu_cache in self._gpu_caches.items():
                rows = gpu_cache.index_select(0, src_index)
                staging = torch.empty(rows.shape, dtype=rows.dtype, pin_memory=True)
                sources[name] = staging.copy_(
                    rows, non_blocking=True  # kvguard: ignore[KVG001] else the caller synchronized
                )
            self._verify_stream.synchronize()
        differing: set[int] = set()
        dst_index = torch.tensor(dst)
        for name, source_rows in sources.items():
            copied_rows = self._cpu_caches[name].index_select(0, dst_index)
            differing.update(mismatched_rows(source_rows, copied_rows))
        return sorted(differing)

    # Shared by both threads.

    def _refuse(self, request: CopyRequest, reason: str) -> None:
        if reason == "verification_mismatch":
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
