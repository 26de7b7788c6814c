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

import bisect
import contextlib
import itertools
import logging
import queue
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch

from kvguard.runtime import driver
from kvguard.runtime.batch_copy import BatchCopier, CopyPlan
from kvguard.runtime.compare import PairComparer
from kvguard.runtime.errors import CudaDriverError, GuardViolation
from kvguard.runtime.guard import CopyGuard, CopyRequest, GuardPolicy, first_of
from kvguard.runtime.order import MemoryKind
from kvguard.runtime.pool import ReusePool
from kvguard.runtime.verify import BlockSampler, plan_pairs

logger = logging.getLogger("kvguard.runtime")

EventsList = list[tuple[int, Any]]

_HANDOVER_SLEEP_S = 50e-6
# A request with this many descriptors (blocks times tensors) or more, made while others wait in
# the queue, is planned by launch_copy: planning it costs the copy thread more than joining its
# descriptors to the group's does (benchmarks/planner_speed.py).
_PLAN_EARLY_FROM = 64
_POLL_S = 100e-6  # the verify thread's sleep between asks whether a check's verdicts are in


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
    plan: CopyPlan | None  # descriptors made on the requesting thread, or None (made later)


class _Sample(NamedTuple):
    """One sampled block: the position of its copy in the group, its source and destination."""

    position: int
    src: int
    dst: int


class _Issued(NamedTuple):
    """Copies issued together, their shared completion event, and their sampled blocks (none:
    nothing to verify)."""

    copies: list[_Copy]
    done: Any  # torch.cuda.Event
    samples: list[_Sample]


@dataclass(frozen=True)
class _Drain:
    reached: threading.Event


_new_tuple = tuple.__new__  # a named tuple's __new__ without its Python frame


def _samples_of(
    ok: list[_Copy], src_blocks: Sequence[int], dst_blocks: Sequence[int], picked: list[int]
) -> list[_Sample]:
    """The sampled blocks (indices `picked` of the group's blocks) with their copy's position."""
    if len(ok) == 1:
        return [_new_tuple(_Sample, (0, src_blocks[i], dst_blocks[i])) for i in picked]
    ends = list(itertools.accumulate(len(copy.request.src_blocks) for copy in ok))
    return [_new_tuple(_Sample, (bisect.bisect_right(ends, i), src_blocks[i], dst_blocks[i])) for i in picked]


def _blocks_of(copies: list[_Copy]) -> tuple[Sequence[int], Sequence[int]]:
    """The source and destination blocks of a group's copies, in order."""
    if len(copies) == 1:
        return copies[0].request.src_blocks, copies[0].request.dst_blocks
    chain = itertools.chain.from_iterable
    return (
        list(chain([copy.request.src_blocks for copy in copies])),
        list(chain([copy.request.dst_blocks for copy in copies])),
    )


def _describe(copies: list[_Copy]) -> str:
    """One request's direction, event index and blocks; several requests' direction and event
    indices."""
    if len(copies) == 1:
        return copies[0].request.describe(destination=True)
    direction = "store" if copies[0].request.is_store else "load"
    return f"{direction} events {first_of([copy.request.event_idx for copy in copies])}"


def _name_refused(error: BaseException, copies: list[_Copy]) -> BaseException:
    """`error`, its message now led by the copies it refused (`_describe`), so that the caller
    who gets it at its next call knows which requests were not copied."""
    prefix = f"kvguard refused {_describe(copies)}"
    if len(error.args) == 1 and isinstance(error.args[0], str):
        error.args = (f"{prefix}: {error.args[0]}",)
    elif hasattr(error, "add_note"):  # Python 3.11+
        error.add_note(prefix)
    return error


def _new_event() -> Any:
    return torch.cuda.Event()  # type: ignore[no-untyped-call]


class OrderedCopyBackend:
    """Copies KV blocks on a background thread, each ordered behind its requester's compute.

    Grouping. The copy thread takes the requests queued when it wakes (same direction, while the
    group holds fewer than `max_group_blocks` blocks and `max_group` requests) and issues them
    as one group: one wait per compute stream, one guard read of the evidence, one
    `cuMemcpyBatchAsync`, one completion event shared by the group. A single request above the
    cap is issued on its own. The driver takes a batch descriptor by descriptor before the
    first copy can start, so a group issued to an idle transfer stream (all work queued on it
    has completed) holds at most `first_group_bytes`, and each group after it may hold twice
    the blocks of the one before, up to the cap: a burst's first copies start while the next
    group is planned. A single request above that size to an idle stream, unless planned by
    `launch_copy`, goes in two driver calls, the first of `first_group_bytes`.

    Failures. Where planning or the driver call fails for a group of several requests,
    nothing of it was copied, and the group is issued again so that only the requests whose
    own copies fail are refused (`_isolate`): each request is planned alone (one with a block
    out of range is refused there), the rest go in one call of one plan a request, and a
    request whose copy the driver names (failIdx) is refused and the rest issued once more;
    where the driver names no copy, each request is issued alone. A healthy group pays
    nothing for this: a request's blocks are checked by the group's own planning, and only
    when that fails is each request planned alone (checking each request before grouping
    would cost a 1,024-block request about what planning it does).

    Host cost. The guard records and waits with one driver call each, on raw handles; its
    compute-done events come from a pool and go back once waited on. Completion events come
    from a pool too, reused once nothing but the pool references them (the caller dropped
    them), and re-recorded with one driver call. The requesting thread keeps the GIL through
    `launch_copy`, so requests launched back to back pile up into large groups; once
    `handover_backlog` of them, holding `handover_bytes` or more, wait (or three or more holding
    `handover_burst_bytes`), `launch_copy` sleeps briefly so that the copy thread can start.
    vLLM's worker launches at most a load and a store per step, so its thread never sleeps.
    Where copies are bound by host time (blocks of less than `plan_early_below` bytes: the
    driver takes each descriptor on the calling thread in about the time the copy engine takes
    to copy it), the copy thread is what limits a burst, so a request launched while others
    still wait in the queue is planned (its descriptors made) by `launch_copy` on the
    requesting thread, whose Python runs while the copy thread is in the driver; the copy
    thread then only joins the plans. A request launched to an empty queue (one per engine
    step, as vLLM makes them) is planned on the copy thread, and the engine's thread pays
    nothing for it.

    Verification (opt-in, sampled). Each block is sampled with probability `verify_fraction`,
    in clusters of about `verify_cluster_bytes` (BlockSampler): a check costs the copy thread
    and the verify thread host time of their own, so a 1% sample of 16 KiB blocks checks about
    one 1,024-block group in 25 (about 256 blocks each) rather than every group (about 10 each).
    A sampled group is copied as any other and handed to the verify thread, which, on a stream
    of its own that waits for the group's completion event, launches a compare kernel
    (compare.py): it reads each sampled block's GPU source (held by the scheduler until the
    store is reported) and its stored host copy in place, and flags the pairs that differ. The
    verify thread polls an event behind the kernel between short sleeps, re-copies what
    differs behind a device synchronize and compares it again, then reports the group. The
    stores' own calls carry nothing for verification: no staging copy, no extra bytes in their
    direction. A group with no sampled block is reported by the copy thread itself unless an
    earlier report is still being verified, so reports stay in request order.
    """

    max_group = 256  # requests per copy-thread wake-up; 1 issues each request on its own
    max_group_blocks = 1024  # merge requests only while a group holds fewer blocks than this
    # Bytes a group issued to an idle transfer stream may hold: small blocks are never capped
    # by it (their groups are bound by host time, which small groups would only add to).
    first_group_bytes = 16 << 20
    # Requests queued and not yet taken at which launch_copy lets the copy thread run (below),
    # once they hold this many bytes too: a hand-over costs the requesting thread about 100 µs,
    # in which the GPU copies about 5 MiB, so a smaller backlog waits for more requests. At
    # 4 MiB, bursts of single 256 KiB stores were held near 20 GB/s by the hand-overs
    # themselves (probes-h200/handover_bytes.txt).
    handover_backlog = 16
    handover_bytes = 8 << 20
    # ... or once three or more wait holding this many (about 1.2 ms of copying): otherwise a
    # burst of a few large stores starts copying only when its launches end
    # (probes-h200/slow_mode.txt, handover_burst.txt). Three, not two: vLLM's worker launches
    # a load and a store back to back each step, and its thread should not sleep for them.
    handover_burst_bytes = 64 << 20
    # Blocks (per tensor) below this size are copied at the pace the driver takes descriptors
    # (0.4 to 0.8 µs of host time each, probes-h200/host_vs_gpu.txt; the copy engine moves
    # 32 KiB in about 0.6 µs), so launch_copy plans a burst's requests for the copy thread.
    plan_early_below = 32 << 10
    # Bytes a verification check compares on average (at least one block): each check costs
    # host time of its own (a hand-off, a launch, a wait), so small blocks are checked in
    # clusters (BlockSampler). 4 MiB against 1 MiB, measured when checks were staged copies:
    # 64 KiB x 1,024 from 0.963 to 0.992x raw, 64 KiB x 128 from 0.933 to 0.970x, no row worse
    # (benchmarks/results/probes-h200/verify_cluster.txt).
    verify_cluster_bytes = 4 << 20

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
        self._launch_lock = threading.Lock()
        # Bytes requested (written under _launch_lock) and taken into groups (by the copy
        # thread): their difference is what waits in the queue.
        self._bytes_launched = 0
        self._bytes_taken = 0
        self._errors: list[BaseException] = []
        self._refused: list[RefusedCopy] = []
        self._closed = False
        self._done_events: ReusePool[Any] = ReusePool(_new_event)
        self._raw_record: Any = None  # cuEventRecord on raw handles, for completion events
        self._event_calls: driver.EventCalls | None = None
        self._comparer: PairComparer | None = None
        self._compared = 0  # raw event behind each check's compare, made by the verify thread
        self._handed_off = 0  # reports given to the verify thread (written by the copy thread)
        self._newest_group_blocks = {True: 0, False: 0}  # per direction (is_store)
        self._reported = 0  # of those, reported or refused (written by the verify thread)
        # Verify thread's own figures (read them after drain()): groups checked, its CPU seconds.
        self.verify_stats = {"checks": 0, "cpu_s": 0.0}

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
        self._gpu_layout = self._store_copier.src_layout
        self._bytes_per_block = max(1, sum(self._gpu_layout.block_bytes))  # every tensor's block
        self._tensors = len(self._gpu_layout.names)
        self._host_bound = min(self._gpu_layout.block_bytes) < self.plan_early_below
        self._verify_cluster = max(1, self.verify_cluster_bytes // self._bytes_per_block)
        if self._store_copier.source_kind is not MemoryKind.DEVICE:
            raise ValueError("gpu_caches must hold CUDA tensors and cpu_caches pinned host ones")
        self._load_copier = BatchCopier(cpu_caches, gpu_caches, load_stream)
        self._gpu_caches = dict(gpu_caches)
        self._cpu_caches = dict(cpu_caches)
        device = torch.device(device)
        # Threads need an explicit index: "cuda" alone means the current device of each thread.
        index = torch.cuda.current_device() if device.index is None else device.index
        self._device = torch.device("cuda", index)
        self._guard.attach(index)
        self._event_calls = driver.resolve_event_calls()
        self._raw_record = self._event_calls.record
        threads = [threading.Thread(target=self._copy_thread, name="kvguard-copy", daemon=True)]
        if self._sampler is not None:
            self._reports = queue.SimpleQueue()
            self._init_verification()
            threads.append(threading.Thread(target=self._verify_thread, name="kvguard-verify", daemon=True))
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
            raise ValueError(f"{len(src_blocks)} source blocks but {len(dst_blocks)} destination blocks")
        if not isinstance(src_blocks, (list, tuple, range)):  # kept, and sliced later
            src_blocks = list(src_blocks)
        if not isinstance(dst_blocks, (list, tuple, range)):
            dst_blocks = list(dst_blocks)
        requests = self._queue
        plan = None
        if self._host_bound and len(src_blocks) * self._tensors >= _PLAN_EARLY_FROM and not requests.empty():
            plan = self._plan_early(is_store, src_blocks, dst_blocks)
        # Under the lock, shutdown() cannot close the guard between the request's record and
        # its queueing (the record would use a destroyed event; the request would be dropped).
        with self._launch_lock:
            if self._closed:
                raise RuntimeError("launch_copy() cannot follow shutdown()")
            request = self._guard.open_request(is_store, event_idx, src_blocks, dst_blocks)
            requests.put(_new_tuple(_Copy, (request, wait_event, events_list, plan)))
            self._bytes_launched += len(src_blocks) * self._bytes_per_block
        waiting = self._bytes_launched - self._bytes_taken
        backlog = requests.qsize()
        if (waiting >= self.handover_bytes and backlog >= self.handover_backlog) or (
            waiting >= self.handover_burst_bytes and backlog >= 3
        ):
            # A burst: this thread holds the GIL through launch_copy (the guard's driver calls
            # keep it), so the copy thread could start only when Python's switch interval
            # (5 ms) forces a hand-over. A short sleep gives it the GIL now. (Waiting instead
            # for the copy thread to take a group was no better: probes-h200/handover.txt.)
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
            marker = _Drain(threading.Event())
            self._queue.put(marker)
            while not marker.reached.wait(0.05):
                if not all(thread.is_alive() for thread in self._threads):
                    self._raise_pending()
                    raise RuntimeError("a kvguard copy thread has stopped; see the log")
        self._raise_pending()

    def raise_errors(self) -> None:
        """Raise the oldest copy-thread error not raised yet, if there is one (`launch_copy` and
        `drain` raise them too); a caller that polls for completions calls this to stop at once."""
        if self._errors:
            self._raise_pending()

    def refused_copies(self) -> list[RefusedCopy]:
        """Copies refused since the last call (each is returned once)."""
        with self._lock:
            refused, self._refused = self._refused, []
        return refused

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
            # The cap is read only when a request waits to join: it asks the driver (a stream
            # query), which cost a lone group 3.5 to 15.5 µs (benchmarks/results/probes-h200/
            # copy_thread_sections.txt).
            cap = (
                self._group_block_cap(is_store, block_limit)
                if blocks < block_limit and limit > 1 and not empty()
                else 0
            )
            while blocks < cap and len(group) < limit and not empty():
                item = get()
                if (
                    isinstance(item, _Copy)
                    and item.request.is_store is is_store
                    and blocks + len(item.request.src_blocks) <= cap
                ):
                    group.append(item)
                    blocks += len(item.request.src_blocks)
                else:  # a marker, the other direction or a request past the cap: next round
                    carried = True
                    break
            self._bytes_taken += blocks * self._bytes_per_block
            try:
                self._issue(group)
            except Exception as exc:  # surfaced to the caller on its next call
                self._fail(exc)
            if not carried:
                item = get()
        if self._reports is not None:
            self._reports.put(None)

    def _group_block_cap(self, is_store: bool, block_limit: int) -> int:
        """Blocks the next group of this direction may hold: `first_group_bytes` worth when its
        transfer stream is idle (all work queued on it has completed), else twice the newest
        group's, up to `block_limit`."""
        first = min(max(1, self.first_group_bytes // self._bytes_per_block), block_limit)
        copier = self._store_copier if is_store else self._load_copier
        assert copier is not None
        try:
            idle = copier.stream.query()
        except Exception as exc:  # surfaced to the caller; the copies' own calls will fail too
            self._fail(exc)
            return block_limit
        blocks = self._newest_group_blocks[is_store]
        return first if idle else min(block_limit, max(first, 2 * blocks))

    def _issue(self, group: list[_Copy]) -> None:
        is_store = group[0].request.is_store
        copier = self._store_copier if is_store else self._load_copier
        assert copier is not None
        stream = copier.stream
        split_at = self._split_point(group, copier)  # read before the barrier queues its wait
        try:
            self._barrier(group, stream)
        except Exception as exc:  # not copied: never reported, so refused (the error is raised too)
            self._refuse_all(group, "copy_error")
            _name_refused(exc, group)
            raise
        finally:  # waited on (or failed): the pool may record them again
            release = self._guard.release
            for copy in group:
                release(copy.request)
        ok = self._check(group, copier)
        if not ok:
            return
        try:
            src_blocks, dst_blocks = _blocks_of(ok)
            samples = self._samples(ok, copier, src_blocks, dst_blocks)
        except Exception as exc:  # nothing was issued: refused (the error is raised too)
            self._refuse_all(ok, "copy_error")
            _name_refused(exc, ok)
            raise
        plans = None
        try:
            plans = self._plans(ok, copier)
            self._issue_blocks(copier, src_blocks, dst_blocks, plans, split_at)
        except Exception as exc:
            if len(ok) == 1:  # its own copy failed: refused (the error is raised too)
                self._refuse_all(ok, "copy_error")
                _name_refused(exc, ok)
                raise
            # One request's blocks, or the driver, failed the group's call: only the requests
            # whose own copies fail are refused; the others are issued again.
            requested = len(ok)
            ok = self._isolate(ok, copier, exc, plans)
            if len(ok) == requested:  # the error raised nothing: say that a call failed
                logger.warning(
                    "kvguard: the call for %s failed and went through when issued again: %s",
                    _describe(ok),
                    exc,
                )
            if not ok:
                return
            try:
                src_blocks, dst_blocks = _blocks_of(ok)
                samples = self._samples(ok, copier, src_blocks, dst_blocks)
            except Exception as exc:  # refused, and its copies may be in flight: let them land
                with contextlib.suppress(Exception):  # the error above is the one raised
                    stream.synchronize()
                self._refuse_all(ok, "copy_error")
                _name_refused(exc, ok)
                raise
        try:
            done = self._done_events.take()
            self._record_done(done, stream)
        except Exception as exc:  # no completion event: refused (the error is raised too)
            self._refuse_all(ok, "copy_error")
            _name_refused(exc, ok)
            raise
        self._newest_group_blocks[is_store] = len(src_blocks)
        if samples:  # verified, then reported, by the verify thread
            self._hand_off(_Issued(ok, done, samples))
        else:
            self._report_or_hand_off(ok, done)

    def _samples(
        self, ok: list[_Copy], copier: BatchCopier, src_blocks: Sequence[int], dst_blocks: Sequence[int]
    ) -> list[_Sample]:
        """The group's sampled blocks, when it is verified (stores only); else none."""
        sampler = self._sampler
        picked = sampler.sample(len(src_blocks), self._verify_cluster) if sampler and copier.is_store else []
        return _samples_of(ok, src_blocks, dst_blocks, picked) if picked else []

    def _isolate(
        self, group: list[_Copy], copier: BatchCopier, error: BaseException, plans: list[CopyPlan] | None
    ) -> list[_Copy]:
        """After `error` failed the call for a group of several requests (nothing of it was
        copied), issue the group again so that a request is refused only when its own copy
        fails, each with its own error; return the requests issued, in request order.

        `plans`: the failed call's plans, one a request, or None (the group was planned as one
        list, or planning it failed). Then each request is planned alone first: one the planner
        rejects (a block out of range) is refused without reaching the driver, and the rest are
        issued in one call of one plan a request. Where the driver names the copy a call failed
        on (failIdx, CUDA 12.8's entry point), the request it belongs to is refused and the
        rest issued again in one call; where it names none, each request is issued alone. Only
        this failure path plans and calls more than once: the copies that went well are
        issued with the calls of the requests around them, on the same stream, before the
        group's completion event is recorded.
        """
        if plans is None:
            pending = self._plan_each(group, copier)
            retry: BaseException | None = None
        else:
            pending = list(zip(group, plans, strict=True))
            retry = error
        while True:
            planned = [index for index, (_, plan) in enumerate(pending) if plan is not None]
            if not planned:  # nothing left to copy (requests with no blocks are reported)
                return [copy for copy, _ in pending]
            if retry is None:
                try:
                    self._issue_pending(copier, pending)
                    return [copy for copy, _ in pending]
                except Exception as exc:
                    retry = exc
            failing = getattr(retry, "failing_plan", None)
            if len(planned) == 1:
                failing = 0
            if failing is None or not 0 <= failing < len(planned):
                return self._issue_each(copier, pending)  # the driver named no copy
            copy, _ = pending.pop(planned[failing])
            self._refuse_failed(copy, retry)
            retry = None

    def _plan_each(self, group: list[_Copy], copier: BatchCopier) -> list[tuple[_Copy, CopyPlan | None]]:
        """Each request's plan (None for one with no blocks); a request the planner rejects is
        refused, with its own error."""
        pending: list[tuple[_Copy, CopyPlan | None]] = []
        for copy in group:
            plan, request = copy.plan, copy.request
            if plan is None and len(request.src_blocks):
                try:
                    plan = copier.plan(request.src_blocks, request.dst_blocks)
                except Exception as exc:
                    self._refuse_failed(copy, exc)
                    continue
            pending.append((copy, plan))
        return pending

    def _issue_pending(self, copier: BatchCopier, pending: list[tuple[_Copy, CopyPlan | None]]) -> None:
        """One driver call for the planned requests of `pending`, one plan a request."""
        copies = [copy for copy, plan in pending if plan is not None]
        src_blocks, dst_blocks = _blocks_of(copies)
        self._issue_copy(copier, src_blocks, dst_blocks, [plan for _, plan in pending if plan is not None])

    def _issue_each(self, copier: BatchCopier, pending: list[tuple[_Copy, CopyPlan | None]]) -> list[_Copy]:
        """Each request in a driver call of its own; one whose call fails is refused."""
        issued = []
        for copy, plan in pending:
            if plan is not None:
                try:
                    self._issue_pending(copier, [(copy, plan)])
                except Exception as exc:
                    self._refuse_failed(copy, exc)
                    continue
            issued.append(copy)
        return issued

    def _refuse_failed(self, copy: _Copy, error: BaseException) -> None:
        """Refuse one request whose own copy failed; `error`, naming it, is raised to the caller."""
        self._refuse(copy.request, "copy_error")
        self._fail(_name_refused(error, [copy]))

    def _barrier(self, group: list[_Copy], stream: torch.cuda.Stream) -> None:
        """The transfer stream waits on the guard's newest event per compute stream, which
        covers the older ones (recorded on that stream after them), and on each caller's
        event as given (once if several requests passed the same one)."""
        if len(group) == 1:
            copy = group[0]
            self._wait_for_compute(stream, copy.request)
            if copy.caller_event is not None:
                stream.wait_event(copy.caller_event)
            return
        newest: dict[int, CopyRequest] = {}
        caller_events: dict[int, Any] = {}
        for copy in group:
            request = copy.request
            known = newest.get(request.compute_stream)
            if known is None or request.seq > known.seq:  # queue order may differ across threads
                newest[request.compute_stream] = request
            if copy.caller_event is not None:
                caller_events[id(copy.caller_event)] = copy.caller_event
        for request in newest.values():
            self._wait_for_compute(stream, request)
        for event in caller_events.values():
            stream.wait_event(event)

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
                self._refuse(copy.request, kind.value)
                self._fail(exc)
                continue
            if verdict.copy:
                ok.append(copy)
            else:
                self._refuse(copy.request, kind.value)
        return ok

    def _report_or_hand_off(self, ok: list[_Copy], done: Any) -> None:
        """Report a group with no sampled block here, unless an earlier report is still being
        verified: then it goes behind that one, to keep reports in request order."""
        if self._reports is None or self._handed_off == self._reported:
            for copy in ok:
                copy.events_list.append((copy.request.event_idx, done))
            return
        self._hand_off(_Issued(ok, done, []))

    def _hand_off(self, issued: _Issued) -> None:
        assert self._reports is not None
        self._handed_off += 1
        self._reports.put(issued)

    def _wait_for_compute(self, transfer_stream: torch.cuda.Stream, request: CopyRequest) -> None:
        """The barrier: the transfer stream waits, through the guard, on the event the guard
        recorded on the requester's compute stream for `request`."""
        self._guard.wait(transfer_stream.cuda_stream, request)

    def _issue_copy(
        self,
        copier: BatchCopier,
        src_blocks: Sequence[int],
        dst_blocks: Sequence[int],
        plans: list[CopyPlan] | None = None,
    ) -> None:
        """One driver call for the blocks. `plans`: their descriptors, one plan per request,
        when some were made already."""
        if plans is None:
            copier.copy(src_blocks, dst_blocks)
        else:
            copier.copy_planned(plans)

    def _split_point(self, group: list[_Copy], copier: BatchCopier) -> int:
        """Blocks in the first of two driver calls for a lone request larger than
        `first_group_bytes` that the copy thread plans itself, when its transfer stream has
        nothing queued (the group's copies would be its first work); else 0, one call."""
        if len(group) != 1 or group[0].plan is not None:
            return 0
        first = self.first_group_bytes // self._bytes_per_block
        if not 0 < first < len(group[0].request.src_blocks):
            return 0
        try:
            return first if copier.stream.query() else 0
        except Exception:  # one call, then: a broken stream fails the copy's own call too
            return 0

    def _issue_blocks(
        self,
        copier: BatchCopier,
        src_blocks: Sequence[int],
        dst_blocks: Sequence[int],
        plans: list[CopyPlan] | None,
        split_at: int,
    ) -> None:
        """A group's copies: one driver call, or, from `_split_point`, two. The
        driver takes a call's descriptors one by one before its first copy starts (64 KiB x
        1,024: 1.2 ms), so the GPU then starts after the short call and copies while the rest
        is handed to the driver."""
        if not split_at:
            self._issue_copy(copier, src_blocks, dst_blocks, plans)
            return
        head_src, head_dst = src_blocks[:split_at], dst_blocks[:split_at]
        tail_src, tail_dst = src_blocks[split_at:], dst_blocks[split_at:]
        # Both parts planned before either is issued: a bad block id refuses the group with
        # nothing copied, as with one call.
        head = copier.plan(head_src, head_dst)
        tail = copier.plan(tail_src, tail_dst)
        self._issue_copy(copier, head_src, head_dst, [head])
        try:
            self._issue_copy(copier, tail_src, tail_dst, [tail])
        except Exception:
            # The group is refused but its head is in flight: it lands before the refusal is
            # seen, so the refused blocks are not written once their owner may reuse them.
            with contextlib.suppress(Exception):  # the failed call's error is the one raised
                copier.stream.synchronize()
            raise

    @staticmethod
    def _plans(group: list[_Copy], copier: BatchCopier) -> list[CopyPlan] | None:
        """Each request's plan, made here for any launch_copy did not plan; None when it
        planned none of them (the group's blocks are then planned as one list)."""
        if len(group) == 1:
            plan = group[0].plan
            return None if plan is None else [plan]
        if all(copy.plan is None for copy in group):
            return None
        return [
            copier.plan(copy.request.src_blocks, copy.request.dst_blocks) if copy.plan is None else copy.plan
            for copy in group
        ]

    # The verification thread (only with verify_fraction > 0): reports stay in request order.

    def _init_verification(self) -> None:
        assert self._store_copier is not None
        try:  # the kernel reads the host copies where they are
            self._host_bases = tuple(
                driver.device_address(base) for base in self._store_copier.dst_layout.base_addresses
            )
        except CudaDriverError as exc:
            raise ValueError(
                "verification compares the stored host blocks in place on the GPU, so cpu_caches "
                "must be pinned memory the GPU can address (tensor.pin_memory(), or "
                f"cudaHostRegister); the driver said: {exc}"
            ) from exc
        self._compare_stream = torch.cuda.Stream(self._device)  # type: ignore[no-untyped-call]

    def _verify_thread(self) -> None:
        try:
            self._start_comparing()
        except Exception as exc:  # raised to the caller; every sampled group is refused
            self._fail(exc)
            logger.error("kvguard: verification could not start (%s); sampled stores will be refused", exc)
        try:
            self._verify_loop()
        finally:
            self._stop_comparing()

    def _start_comparing(self) -> None:
        """The compare kernel and its event, made in the device's context, made current on
        this thread first (a thread new to CUDA may have none)."""
        torch.cuda.set_device(self._device)
        calls = self._event_calls
        assert calls is not None
        driver.check(
            calls.bind(self._compare_stream.cuda_stream), "cuCtxSetCurrent (the verify thread's context)"
        )
        code, self._compared = calls.create()
        driver.check(code, "cuEventCreate (verification's compare event)")
        self._comparer = PairComparer(
            driver.resolve_kernel_calls(), pinned=next(iter(self._cpu_caches.values())).is_pinned()
        )

    def _stop_comparing(self) -> None:
        """Unload the kernel and destroy its event as the verify thread ends; a failure is
        logged (shutdown goes on)."""
        try:
            if self._comparer is not None:
                self._comparer.close()
            if self._compared and self._event_calls is not None:
                driver.check(
                    self._event_calls.destroy(self._compared), "cuEventDestroy (verification's compare event)"
                )
        except Exception as exc:
            logger.warning("kvguard: releasing verification's kernel and event failed: %s", exc)
        self._comparer, self._compared = None, 0

    def _verify_loop(self) -> None:
        """Verify and report handed-off groups, one at a time, in request order."""
        reports = self._reports
        assert reports is not None
        while True:
            item = reports.get()
            if item is None:  # shutdown: nothing comes after it
                return
            if isinstance(item, _Drain):
                item.reached.set()
                continue
            began = time.thread_time()
            try:
                self._conclude(item)
            except Exception as exc:  # surfaced to the caller on its next call
                self._fail(exc)
            finally:
                self._reported += 1
            self.verify_stats["cpu_s"] += time.thread_time() - began
            del item  # let go of its completion event, so that the pool may reuse it

    def _conclude(self, issued: _Issued) -> None:
        """Once the group's copies are done, compare its sampled blocks with their GPU sources
        on the GPU, re-copy mismatches once, then report what holds. Without a compare kernel
        (it failed to start) a sampled group is refused, never reported unverified."""
        refused: set[int] = set()
        if issued.samples:
            if self._comparer is None:
                self._refuse_all(issued.copies, "verification_error")
                return
            self.verify_stats["checks"] += 1
            try:
                samples = issued.samples
                bad = self._differing(samples, after=issued.done.cuda_event)
                self._guard.counters.add("verified", len(samples))
                if bad:
                    refused = self._recopy(issued, [samples[i] for i in bad])
            except Exception:  # never report what could not be verified
                self._refuse_all(issued.copies, "verification_error")
                raise
        for position, copy in enumerate(issued.copies):
            if refused and position in refused:
                self._refuse(copy.request, "verification_mismatch")
            else:
                copy.events_list.append((copy.request.event_idx, issued.done))

    def _differing(self, samples: list[_Sample], after: int) -> list[int]:
        """Positions i whose host block `samples[i].dst` differs from GPU block
        `samples[i].src` in any tensor, compared on the verification stream once event `after`
        has completed (0: at once, the host having synchronized with the copies)."""
        calls, comparer = self._event_calls, self._comparer
        assert calls is not None and comparer is not None
        stream = self._compare_stream.cuda_stream
        if after:
            driver.check(calls.wait(stream, after), "cuStreamWaitEvent (verification's compare)")
        try:
            comparer.enqueue(
                stream,
                *plan_pairs(
                    self._gpu_layout.base_addresses,
                    self._host_bases,
                    self._gpu_layout.block_bytes,
                    [sample.src for sample in samples],
                    [sample.dst for sample in samples],
                ),
            )
            driver.check(calls.record(self._compared, stream), "cuEventRecord (verification's compare event)")
            self._wait_for(self._compared)
        except Exception:
            # A launch may be queued: the next check reuses the arrays it reads, so let it end.
            with contextlib.suppress(Exception):  # the call's own error is the one raised
                self._compare_stream.synchronize()
            raise
        return sorted({pair % len(samples) for pair in comparer.differing()})

    def _wait_for(self, event: int) -> None:
        """Sleep until `event` has completed, asking the driver between short sleeps.

        Polled rather than synchronized on: a spinning synchronize keeps a core and the driver
        busy while the copy thread calls it, and a blocking-sync event was no better on small
        blocks (benchmarks/results/probes-h200/paired_variants-verify-wait.txt).
        """
        calls = self._event_calls
        assert calls is not None
        code = calls.query(event)
        while code == driver.NOT_READY:
            time.sleep(_POLL_S)
            code = calls.query(event)
        driver.check(code, "cuEventQuery (verification's compare event)")

    def _recopy(self, issued: _Issued, bad: list[_Sample]) -> set[int]:
        """Re-copy differing blocks behind a device synchronize and compare them again; the
        positions of copies whose blocks still differ."""
        self._guard.counters.add("mismatches", len(bad))
        bad_src, bad_dst = [sample.src for sample in bad], [sample.dst for sample in bad]
        logger.warning(
            "kvguard: %s: %d verified blocks differ from their GPU source (source blocks %s); "
            "re-copying them behind a device synchronize",
            issued.copies[bad[0].position].request.describe(),
            len(bad),
            bad_src[:8],
        )
        # A host-blocking device synchronize orders the re-copy after every stream's writes.
        torch.cuda.synchronize(self._device)
        copier = self._store_copier
        assert copier is not None
        self._issue_copy(copier, bad_src, bad_dst)
        copier.stream.synchronize()
        self._guard.counters.add("recopied", len(bad))
        return {bad[i].position for i in self._differing(bad, after=0)}

    # Shared by both threads.

    def _refuse_all(self, copies: list[_Copy], reason: str) -> None:
        for copy in copies:
            self._refuse(copy.request, reason)

    def _refuse(self, request: CopyRequest, reason: str) -> None:
        if reason.startswith("verification_") or reason == "copy_error":  # guard refusals
            self._guard.counters.add("refused")  # are counted by the guard's policy
        with self._lock:
            self._refused.append(
                RefusedCopy(
                    request.event_idx,
                    request.is_store,
                    tuple(request.src_blocks),
                    tuple(request.dst_blocks),
                    reason,
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
