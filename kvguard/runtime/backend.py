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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from kvguard.runtime.batch_copy import BatchCopier
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


@dataclass(frozen=True)
class _Copy:
    request: CopyRequest
    compute_done: Any  # torch.cuda.Event or torch.Event recorded on the compute stream
    events_list: EventsList


@dataclass(frozen=True)
class _Issued:
    copy: _Copy
    done: torch.cuda.Event
    sampled: list[int]


@dataclass(frozen=True)
class _Drain:
    reached: threading.Event


class OrderedCopyBackend:
    """Copies KV blocks on a background thread, each ordered behind its requester's compute."""

    def __init__(
        self,
        policy: GuardPolicy = GuardPolicy.RAISE,
        verify_fraction: float = 0.0,
        verify_seed: int | None = None,
    ) -> None:
        self._guard = CopyGuard(policy)
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
        self._raise_pending()
        if not self._threads or self._closed:
            raise RuntimeError("launch_copy() needs init() first and cannot follow shutdown()")
        if len(src_blocks) != len(dst_blocks):
            raise ValueError(
                f"{len(src_blocks)} source blocks but {len(dst_blocks)} destination blocks"
            )
        compute = torch.cuda.current_stream(self._device)
        request = self._guard.open_request(
            compute.cuda_stream, is_store, event_idx, tuple(src_blocks), tuple(dst_blocks)
        )
        if wait_event is None:  # the older worker shape: take the barrier's event here
            wait_event = torch.cuda.Event()  # type: ignore[no-untyped-call]
            wait_event.record(compute)
        self._queue.put(_Copy(request, wait_event, events_list))

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
        while (item := self._queue.get()) is not None:
            if isinstance(item, _Drain) and self._reports is None:
                item.reached.set()
            elif isinstance(item, _Drain):
                self._reports.put(item)  # type: ignore[union-attr]
            else:
                try:
                    self._issue(item)
                except Exception as exc:  # surfaced to the caller on its next call
                    self._fail(exc)
        if self._reports is not None:
            self._reports.put(None)

    def _issue(self, copy: _Copy) -> None:
        request = copy.request
        copier = self._store_copier if request.is_store else self._load_copier
        assert copier is not None
        self._wait_for_compute(copier.stream, copy.compute_done)
        verdict = self._guard.check(
            request, copier.stream.cuda_stream, copier.source_kind, copier.source_order
        )
        if not verdict.copy:
            assert verdict.violation is not None
            self._refuse(request, verdict.violation.value)
            return
        self._issue_copy(copier, request.src_blocks, request.dst_blocks)
        done = torch.cuda.Event()  # type: ignore[no-untyped-call]
        done.record(copier.stream)
        if self._reports is None:
            copy.events_list.append((request.event_idx, done))
            return
        assert self._sampler is not None
        sampled = self._sampler.sample(len(request.src_blocks)) if request.is_store else []
        self._reports.put(_Issued(copy, done, sampled))

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

    def _report(self, issued: _Issued) -> None:
        copy = issued.copy
        if issued.sampled:
            issued.done.synchronize()
            if not self._verify(copy, issued.sampled):
                self._refuse(copy.request, "verification_mismatch")
                return
        copy.events_list.append((copy.request.event_idx, issued.done))

    def _verify(self, copy: _Copy, sampled: list[int]) -> bool:
        """Compare sampled stored blocks with their GPU source; re-copy mismatches once."""
        src = [copy.request.src_blocks[i] for i in sampled]
        dst = [copy.request.dst_blocks[i] for i in sampled]
        bad = self._mismatched(src, dst, copy.compute_done)
        self._guard.counters.add("verified", len(sampled))
        if not bad:
            return True
        self._guard.counters.add("mismatches", len(bad))
        bad_src, bad_dst = [src[i] for i in bad], [dst[i] for i in bad]
        logger.warning(
            "kvguard: %s: %d of %d verified blocks differ from their GPU source (source "
            "blocks %s); re-copying them behind a device synchronize",
            copy.request.describe(), len(bad), len(sampled), bad_src[:8],
        )
        # A host-blocking device synchronize orders the re-copy after every stream's writes.
        torch.cuda.synchronize(self._device)
        assert self._store_copier is not None
        self._issue_copy(self._store_copier, bad_src, bad_dst)
        self._store_copier.stream.synchronize()
        self._guard.counters.add("recopied", len(bad))
        return not self._mismatched(bad_src, bad_dst, None)

    def _mismatched(self, src: list[int], dst: list[int], compute_done: Any) -> list[int]:
        """Positions in src/dst whose host copy differs from the GPU source in any tensor."""
        with torch.cuda.stream(self._verify_stream):
            if compute_done is not None:  # read the source as the compute stream leaves it
                self._verify_stream.wait_event(compute_done)
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
        for name, source_rows in sources.items():
            copied_rows = self._cpu_caches[name].index_select(0, torch.tensor(dst))
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
