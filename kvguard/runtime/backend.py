"""An ordered, guarded drop-in for the copy backend of vLLM's SimpleCPUOffloadWorker.

Interface (as the worker calls it): `init(gpu_caches, cpu_caches, device, load_stream,
store_stream)` with dicts of per-layer tensors whose first dimension is the block index;
`launch_copy(src_blocks, dst_blocks, is_store, event_idx, events_list, wait_event=None)`, which
never waits for a copy and later appends `(event_idx, completion_event)` to `events_list` in
request order; `shutdown()`. As vLLM's stock backend, it keeps the block lists it is given
(copying a 1,024-block list on the requesting thread costs microseconds a launch): a caller
must not change them until the copy is reported or refused. Lists, tuples and ranges are kept
as they are; other sequences are copied into lists.

What it adds: every copy, store or load, is ordered behind the compute stream of the thread
that requested it. At request time the guard records an event on that thread's current stream;
the copy thread has the guard make the transfer stream wait on it (and on the caller's
`wait_event`, when one is given) and the guard checks, from the record and wait it made itself,
that this happened before the copy reaches the driver.

A copy that is refused (guard policy `refuse`, or a verification mismatch that a re-copy did not
fix) gets no completion event and is listed by `refused_copies()`. vLLM's stock worker treats
the newest completed event as covering all earlier ones, so an adapter must drop refused event
indices itself. Errors on the copy thread (a GuardViolation under policy `raise`, a driver
error) are raised on the caller's next `launch_copy()` or `drain()`; a copy that an error kept
from being made is also listed by `refused_copies()` (reason `copy_error`, or the violation's
kind under `raise`). A request whose own copy cannot be made (a block out of range, a driver
error on its copies) is refused alone, its error naming it (direction, event index, blocks);
the other requests of its group are copied and reported in request order.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from kvguard.runtime import driver
from kvguard.runtime.batch_copy import BatchCopier, CopyCall, CopyPlan, copy_blocks
from kvguard.runtime.guard import CopyGuard, CopyRequest, GuardPolicy
from kvguard.runtime.intake import (
    Drain,
    EventsList,
    GroupLimits,
    QueuedCopy,
    gather_group,
    group_block_cap,
    hands_over,
    plans_early,
)
from kvguard.runtime.issue import Barrier, CompletionEvents, GroupIssuer, guarded_wait
from kvguard.runtime.order import MemoryKind
from kvguard.runtime.refusals import PendingErrors, Refusals, RefusedCopy
from kvguard.runtime.verify import BlockSampler, Verifier, report

logger = logging.getLogger("kvguard.runtime")

_HANDOVER_SLEEP_S = 50e-6
# Bytes a verification check compares on average (at least one block): each check costs host
# time of its own (a hand-off, a launch, a wait), so small blocks are checked in clusters.
VERIFY_CLUSTER_BYTES = 4 << 20

_new_tuple = tuple.__new__  # a named tuple's __new__ without its Python frame


class OrderedCopyBackend:
    """Copies KV blocks on a background thread, each ordered behind its requester's compute.

    Intake (`launch_copy`, on the requesting thread): the guard records its event on the
    thread's compute stream and the request is queued. The requesting thread keeps the GIL
    through `launch_copy`, so requests launched back to back pile up into large groups; once
    enough wait (`GroupLimits`), `launch_copy` sleeps briefly so that the copy thread can start.
    Where copies are bound by host time (blocks below `plan_early_below`), a request launched
    while others wait is planned by `launch_copy`, whose Python runs while the copy thread is
    in the driver. vLLM's worker launches at most a load and a store per step: its thread never
    sleeps, and its requests are planned on the copy thread.

    The copy thread gathers queued requests of one direction into a group (intake.py) and
    issues it (issue.py); the verify thread, when `verify_fraction` > 0, checks sampled groups
    before they are reported (verify.py). Each block is sampled with probability
    `verify_fraction`, in clusters of about `verify_cluster_bytes`.

    Constructor arguments beyond the policy and verification settings change how copies are
    made, for tests and benchmarks: `limits` (grouping and hand-over), `guard` (a CopyGuard of
    the caller's), `barrier` (how the transfer stream is made to wait: a wrong one is what the
    guard must catch), `copy_call` (the driver call for a group's blocks), `start_gate` (the
    copy thread takes no request before it is set) and `on_group` (called on the copy thread
    with each group's requests before it is issued).
    """

    def __init__(
        self,
        policy: GuardPolicy = GuardPolicy.RAISE,
        verify_fraction: float = 0.0,
        verify_seed: int | None = None,
        *,
        limits: GroupLimits | None = None,
        verify_cluster_bytes: int = VERIFY_CLUSTER_BYTES,
        guard: CopyGuard | None = None,
        barrier: Barrier = guarded_wait,
        copy_call: CopyCall = copy_blocks,
        start_gate: threading.Event | None = None,
        on_group: Callable[[list[CopyRequest]], None] | None = None,
    ) -> None:
        self._guard = CopyGuard(GuardPolicy(policy)) if guard is None else guard
        self.limits = GroupLimits() if limits is None else limits
        self._sampler = BlockSampler(verify_fraction, verify_seed) if verify_fraction else None
        self._verify_cluster_bytes = verify_cluster_bytes
        self._barrier = barrier
        self._copy_call = copy_call
        self._start_gate = start_gate
        self._on_group = on_group
        self._refusals = Refusals(self._guard.counters)
        self._errors = PendingErrors()
        self._store_copier: BatchCopier | None = None
        self._load_copier: BatchCopier | None = None
        self._issuer: GroupIssuer | None = None
        self._verifier: Verifier | None = None
        self._queue: queue.SimpleQueue[QueuedCopy | Drain | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._launch_lock = threading.Lock()
        # Bytes requested (written under _launch_lock) and taken into groups (by the copy
        # thread): their difference is what waits in the queue.
        self._bytes_launched = 0
        self._bytes_taken = 0
        self._closed = False

    @property
    def counters(self) -> dict[str, int]:
        """Stores and loads checked, violations by kind, refused, verified, mismatches, recopied."""
        return self._guard.counters.as_dict()

    @property
    def completion_events_created(self) -> int:
        """Completion events made so far (the other groups reused one the caller had dropped)."""
        return 0 if self._issuer is None else self._issuer.completions.created

    @property
    def verify_stats(self) -> dict[str, float]:
        """The verify thread's figures (read them after drain()): groups checked, its CPU seconds."""
        return {"checks": 0, "cpu_s": 0.0} if self._verifier is None else dict(self._verifier.stats)

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
        store = self._store_copier = BatchCopier(gpu_caches, cpu_caches, store_stream)
        if store.source_kind is not MemoryKind.DEVICE:
            raise ValueError("gpu_caches must hold CUDA tensors and cpu_caches pinned host ones")
        self._load_copier = BatchCopier(cpu_caches, gpu_caches, load_stream)
        layout = store.src_layout
        self._bytes_per_block = max(1, sum(layout.block_bytes))  # every tensor's block
        self._tensors = len(layout.names)
        self._host_bound = min(layout.block_bytes) < self.limits.plan_early_below
        device = torch.device(device)
        # Threads need an explicit index: "cuda" alone means the current device of each thread.
        index = torch.cuda.current_device() if device.index is None else device.index
        self._device = torch.device("cuda", index)
        self._guard.attach(index)
        event_calls = driver.resolve_event_calls()
        self._issuer = GroupIssuer(
            self._guard,
            self._refusals,
            self._errors,
            CompletionEvents(event_calls.record),
            self.limits,
            self._bytes_per_block,
            self._barrier,
            self._copy_call,
            self._sampler,
            verify_cluster=max(1, self._verify_cluster_bytes // self._bytes_per_block),
        )
        threads = [threading.Thread(target=self._copy_thread, name="kvguard-copy", daemon=True)]
        if self._sampler is not None:
            self._verifier = Verifier(
                store,
                next(iter(cpu_caches.values())).is_pinned(),
                self._device,
                event_calls,
                self._guard.counters,
                self._refusals,
                self._errors,
                self._copy_call,
            )
            threads.append(self._verifier.thread)
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
            self._errors.raise_oldest()
        if not self._threads or self._closed:
            raise RuntimeError("launch_copy() needs init() first and cannot follow shutdown()")
        if len(src_blocks) != len(dst_blocks):
            raise ValueError(f"{len(src_blocks)} source blocks but {len(dst_blocks)} destination blocks")
        if not isinstance(src_blocks, (list, tuple, range)):  # kept, and sliced later
            src_blocks = list(src_blocks)
        if not isinstance(dst_blocks, (list, tuple, range)):
            dst_blocks = list(dst_blocks)
        requests = self._queue
        plan = None
        if plans_early(self._host_bound, len(src_blocks) * self._tensors, not requests.empty()):
            plan = self._plan_early(is_store, src_blocks, dst_blocks)
        # Under the lock, shutdown() cannot close the guard between the request's record and
        # its queueing (the record would use a destroyed event; the request would be dropped).
        with self._launch_lock:
            if self._closed:
                raise RuntimeError("launch_copy() cannot follow shutdown()")
            request = self._guard.open_request(is_store, event_idx, src_blocks, dst_blocks)
            requests.put(_new_tuple(QueuedCopy, (request, wait_event, events_list, plan)))
            self._bytes_launched += len(src_blocks) * self._bytes_per_block
        if hands_over(self.limits, self._bytes_launched - self._bytes_taken, requests.qsize()):
            # A burst: this thread holds the GIL through launch_copy (the guard's driver calls
            # keep it), so the copy thread could start only when Python's switch interval
            # (5 ms) forces a hand-over. A short sleep gives it the GIL now.
            time.sleep(_HANDOVER_SLEEP_S)

    def _plan_early(self, is_store: bool, src: Sequence[int], dst: Sequence[int]) -> CopyPlan | None:
        """Plan a request on the requesting thread, where the copy thread is behind."""
        copier = self._store_copier if is_store else self._load_copier
        assert copier is not None
        try:
            return copier.plan(src, dst)
        except (ValueError, IndexError):  # bad block lists: the copy thread plans again, and
            return None  # its error refuses the copy and is raised, as for any request

    def drain(self) -> None:
        """Block until every queued copy was issued and reported; raise any copy-thread error."""
        if self._threads and not self._closed:
            marker = Drain(threading.Event())
            self._queue.put(marker)
            while not marker.reached.wait(0.05):
                if not all(thread.is_alive() for thread in self._threads):
                    self._errors.raise_oldest()
                    raise RuntimeError("a kvguard copy thread has stopped; see the log")
        self._errors.raise_oldest()

    def raise_errors(self) -> None:
        """Raise the oldest copy-thread error not raised yet, if there is one (`launch_copy` and
        `drain` raise them too); a caller that polls for completions calls this to stop at once."""
        if self._errors:
            self._errors.raise_oldest()

    def refused_copies(self) -> list[RefusedCopy]:
        """Copies refused since the last call (each is returned once)."""
        return self._refusals.take()

    def shutdown(self) -> None:
        with self._launch_lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout=10.0)
        if not any(thread.is_alive() for thread in self._threads):
            self._guard.close()  # no request is in flight any more
        for error in self._errors.take_all():
            logger.error("kvguard copy thread error not raised before shutdown: %s", error)

    # The copy thread.

    def _copy_thread(self) -> None:
        try:
            torch.cuda.set_device(self._device)
        except Exception as exc:
            self._errors.add(exc)
            raise
        if self._start_gate is not None:
            self._start_gate.wait()
        self._copy_loop()

    def _copy_loop(self) -> None:
        """Issue queued requests in groups, in request order, until shutdown's None."""
        get, empty = self._queue.get, self._queue.empty
        verifier, on_group = self._verifier, self._on_group

        def waiting() -> bool:
            return not empty()

        block_caps = {
            is_store: functools.partial(self._group_block_cap, is_store) for is_store in (True, False)
        }

        item = get()
        while item is not None:
            if isinstance(item, Drain):
                if verifier is None:
                    item.reached.set()
                else:  # reached once everything before it was verified and reported
                    verifier.pass_on(item)
                item = get()
                continue
            is_store = item.request.is_store
            gathered = gather_group(item, waiting, get, self.limits, block_caps[is_store])
            self._bytes_taken += gathered.blocks * self._bytes_per_block
            group = gathered.group
            if on_group is not None:
                on_group([copy.request for copy in group])
            try:
                self._issue(group, is_store)
            except Exception as exc:  # surfaced to the caller on its next call
                self._errors.add(exc)
            item = gathered.next_item if gathered.carried else get()
        if verifier is not None:
            verifier.finish()

    def _issue(self, group: list[QueuedCopy], is_store: bool) -> None:
        """Issue a group and report it (through the verify thread, when there is one). Its
        completion event is referenced no longer than this call: the pool reuses it once the
        caller drops it."""
        copier = self._store_copier if is_store else self._load_copier
        assert copier is not None and self._issuer is not None
        issued = self._issuer.issue(group, copier)
        if issued is None:
            return
        if self._verifier is None:
            report(issued)
        else:  # verified first, or reported behind a report still being verified
            self._verifier.report_or_hand_off(issued)

    def _group_block_cap(self, is_store: bool) -> int:
        """Blocks the next group of this direction may hold (intake.group_block_cap), from
        whether its transfer stream is idle."""
        copier = self._store_copier if is_store else self._load_copier
        assert copier is not None and self._issuer is not None
        try:
            idle = copier.stream.query()
        except Exception as exc:  # surfaced to the caller; the copies' own calls will fail too
            self._errors.add(exc)
            return max(1, self.limits.max_group_blocks)
        newest = self._issuer.newest_group_blocks[is_store]
        return group_block_cap(self.limits, self._bytes_per_block, idle, newest)
