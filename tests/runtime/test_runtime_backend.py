"""OrderedCopyBackend's threads on CPU stand-ins for CUDA (runtime_sim): group cap, completion
event reuse, guard integration, verification (its compare on a stand-in for the kernel launch)
and FIFO reports."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest
import torch
from runtime_sim import (
    SIM,
    TORCH_WAITS,
    GatedBackend,
    SimEvent,
    SimEventCalls,
    SimStream,
    compared_blocks,
    holds,
    install,
    make_caches,
    start,
    wait_until,
)

from kvguard.runtime import (
    BatchCopyError,
    CudaDriverError,
    GuardPolicy,
    GuardViolation,
    OrderedCopyBackend,
)
from kvguard.runtime import backend as backend_module
from kvguard.runtime import compare as compare_module
from kvguard.runtime import verify as verify_module
from kvguard.runtime.batch_copy import copy_blocks
from kvguard.runtime.guard import CopyGuard, CopyRequest
from kvguard.runtime.intake import GroupLimits, QueuedCopy
from kvguard.runtime.order import SourceOrder


@pytest.fixture(autouse=True)
def sim(monkeypatch: pytest.MonkeyPatch) -> SimEventCalls:
    return install(monkeypatch)


def launch_all(
    backend: OrderedCopyBackend,
    sizes: Sequence[int],
    stores: Sequence[bool] | None = None,
    events: list[tuple[int, Any]] | None = None,
) -> list[tuple[int, Any]]:
    events = [] if events is None else events
    compute = SimStream()
    with torch.cuda.stream(compute):  # type: ignore[arg-type]
        block = 0
        for idx, size in enumerate(sizes):
            blocks = list(range(block, block + size))
            block += size
            is_store = True if stores is None else stores[idx]
            backend.launch_copy(blocks, blocks, is_store, idx, events)
    return events


def gated_groups(
    sizes: Sequence[int], stores: Sequence[bool] | None = None, **limits: int
) -> tuple[list[list[int]], list[tuple[int, Any]], GatedBackend]:
    gpu, cpu = make_caches(sum(sizes), sum(sizes))
    backend = GatedBackend(GuardPolicy.RAISE, limits=GroupLimits(**limits))
    start(backend, gpu, cpu)
    events = launch_all(backend, sizes, stores)
    backend.gate.set()
    backend.drain()
    backend.shutdown()
    block = 0
    for size in sizes:  # every copy landed, whichever group carried it
        assert holds(gpu, cpu, range(block, block + size), range(block, block + size))
        block += size
    return backend.groups, events, backend


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ([1] * 300, [list(range(256)), list(range(256, 300))]),  # 256 requests, the rest
        ([8] * 200, [list(range(128)), list(range(128, 200))]),  # 1,024 blocks, the rest
        ([16] * 70, [list(range(64)), list(range(64, 70))]),
        ([400, 400, 400], [[0, 1], [2]]),  # a third would pass 1,024: it starts the next group
        ([1100, 1], [[0], [1]]),  # a request above the cap is issued alone
        ([1, 1100, 1], [[0], [1], [2]]),
        ([1023, 1, 1], [[0, 1], [2]]),
    ],
)
def test_group_merges_requests_only_below_the_block_cap(sizes: list[int], expected: list[list[int]]) -> None:
    groups, events, _ = gated_groups(sizes, first_group_bytes=1 << 40)  # no ramp: the cap alone
    assert groups == expected
    assert [idx for idx, _ in events] == list(range(len(sizes)))  # FIFO
    for group in expected:  # one completion event per group, shared by its requests
        assert len({id(events[i][1]) for i in group}) == 1


@pytest.mark.parametrize(
    ("busy", "sizes", "expected"),
    [
        (True, [1] * 300, [16, 32, 64, 128, 60]),  # doubling while copies are in flight
        (False, [1] * 40, [16, 16, 8]),  # an idle stream: every group starts small
        (True, [8] * 40, [2, 4, 8, 16, 10]),  # in requests of 8 blocks: 16, 32, .. blocks
        (False, [100, 100], [1, 1]),  # a request above the first cap goes alone
    ],
)
def test_a_group_for_an_idle_stream_starts_small_and_doubles_while_busy(
    monkeypatch: pytest.MonkeyPatch, busy: bool, sizes: list[int], expected: list[int]
) -> None:
    """The first copies of a burst reach an idle transfer stream without waiting for a
    1,024-block driver call; groups then grow while the newest one is still copying."""
    monkeypatch.setattr(SimStream, "query", lambda self: not busy)
    groups, events, _ = gated_groups(sizes, first_group_bytes=16 * 64)  # 16 blocks of 64 bytes
    assert [len(group) for group in groups] == expected
    assert [idx for idx, _ in events] == list(range(len(sizes)))


@pytest.mark.parametrize(
    ("busy", "sizes", "early", "calls"),
    [
        (False, [100], False, [16, 84]),  # idle: a short first call, then the rest
        (True, [100], False, [100]),  # copies in flight keep the GPU busy: one call
        (False, [16], False, [16]),  # no larger than first_group_bytes: one call
        (False, [40, 40], False, [16, 24, 16, 24]),  # each lone request to the idle stream
        (False, [40, 40], True, [16, 24, 40]),  # the second, planned by launch_copy: one call
    ],
)
def test_a_large_group_to_an_idle_stream_starts_with_a_short_driver_call(
    monkeypatch: pytest.MonkeyPatch, busy: bool, sizes: list[int], early: bool, calls: list[int]
) -> None:
    """The GPU starts copying once the first call's descriptors are in, not the whole group's;
    the group still has one completion event and every block lands. The copy thread splits
    only what it plans itself."""
    monkeypatch.setattr(SimStream, "query", lambda self: not busy)
    groups, events, backend = gated_groups(  # first_group_bytes: 16 blocks of 64 bytes
        sizes, first_group_bytes=16 * 64, plan_early_below=GroupLimits().plan_early_below if early else 0
    )
    copier = backend._store_copier
    assert copier is not None
    assert [len(src) for src, _ in copier.calls] == calls
    assert [block for src, _ in copier.calls for block in src] == list(range(sum(sizes)))
    assert len(groups) == len(sizes) and [idx for idx, _ in events] == list(range(len(sizes)))
    assert len({id(event) for _, event in events}) == len(sizes)  # one completion event a group


def test_a_failure_in_the_second_call_of_a_split_group_refuses_it_after_the_first_lands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The head's copies are already queued when the tail's call fails: the group is refused,
    and the transfer stream is synchronized first, so nothing of it is still writing once its
    blocks may be reused."""
    gpu, cpu = make_caches(100, 100)
    backend = GatedBackend(GuardPolicy.RAISE, limits=GroupLimits(first_group_bytes=16 * 64))
    start(backend, gpu, cpu)
    store = backend._store_copier
    assert store is not None
    store.fail_calls = {1}  # type: ignore[attr-defined]  # the tail's call
    synchronized: list[int] = []
    monkeypatch.setattr(store.stream, "synchronize", lambda: synchronized.append(len(store.calls)))  # type: ignore[attr-defined]
    events = launch_all(backend, [40])
    backend.gate.set()
    with pytest.raises(BatchCopyError, match="simulated failure"):
        backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert events == [] and [(r.event_idx, r.reason) for r in refused] == [(0, "copy_error")]
    assert synchronized == [2]  # after both calls were made


def test_a_bad_block_in_a_split_loads_tail_refuses_it_with_nothing_copied() -> None:
    """Both parts are planned before either is issued: an out-of-range block at the end of a
    large load refuses the load and no GPU block is overwritten."""
    gpu, cpu = make_caches(100, 100)
    backend = GatedBackend(GuardPolicy.RAISE, limits=GroupLimits(first_group_bytes=16 * 64))
    start(backend, gpu, cpu)
    before = {name: tensor.clone() for name, tensor in gpu.items()}
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        backend.launch_copy(list(range(40)), [*range(39), 100], False, 0, events)
    backend.gate.set()
    with pytest.raises(IndexError):
        backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert backend._load_copier.calls == []  # type: ignore[union-attr]
    assert all(torch.equal(gpu[name], before[name]) for name in gpu)
    assert events == [] and [(r.event_idx, r.reason) for r in refused] == [(0, "copy_error")]


def test_the_split_is_decided_before_the_barrier_queues_its_wait(
    sim: SimEventCalls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether the group would be the transfer stream's first work is read before its wait on
    the compute stream is queued (a pending wait would make any stream look busy)."""

    def query(stream: SimStream) -> bool:
        sim.calls.append(("query", stream.cuda_stream))
        return True

    monkeypatch.setattr(SimStream, "query", query)
    # max_group 1: the group cap, which asks the stream too, is not read
    _, _, backend = gated_groups([100], first_group_bytes=16 * 64, max_group=1)
    store = backend._store_copier.stream.cuda_stream  # type: ignore[union-attr]
    ours = [call[0] for call in sim.calls if call[0] in ("query", "wait") and call[1] == store]
    assert ours == ["query", "wait"]
    assert [len(src) for src, _ in backend._store_copier.calls] == [16, 84]  # type: ignore[union-attr]


def test_group_caps_are_constructor_limits() -> None:
    groups, _, _ = gated_groups([1] * 10, max_group=4)
    assert groups == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    groups, _, _ = gated_groups([2] * 5, max_group_blocks=4)
    assert groups == [[0, 1], [2, 3], [4]]
    groups, _, _ = gated_groups([3, 3], max_group=1)
    assert groups == [[0], [1]]


def test_direction_change_and_drain_end_a_group() -> None:
    groups, events, _ = gated_groups([1, 1, 1, 1], stores=[True, True, False, True])
    assert groups == [[0, 1], [2], [3]]
    assert [idx for idx, _ in events] == [0, 1, 2, 3]

    gpu, cpu = make_caches(8, 8)
    backend = start(GatedBackend(GuardPolicy.RAISE), gpu, cpu)
    assert isinstance(backend, GatedBackend)
    events = launch_all(backend, [1, 1])
    drained = threading.Thread(target=backend.drain)
    drained.start()
    assert wait_until(lambda: backend._queue.qsize() == 3)  # the drain's marker behind the two
    launch_all(backend, [1], events=events)
    backend.gate.set()
    drained.join(5)
    backend.drain()
    backend.shutdown()
    assert backend.groups == [[0, 1], [0]]


def test_shutdown_with_requests_still_queued_issues_them_and_returns() -> None:
    gpu, cpu = make_caches(600, 600)
    backend = GatedBackend(GuardPolicy.RAISE)
    start(backend, gpu, cpu)
    events = launch_all(backend, [1] * 300)
    backend.gate.set()
    backend.shutdown()  # the None behind the copies may end a group: the thread must still stop
    assert not any(thread.is_alive() for thread in backend._threads)
    assert len(events) == 300


def test_completion_events_are_reused_once_the_caller_drops_them() -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    seen = set()
    for _ in range(50):
        events = launch_all(backend, [1])
        backend.drain()
        assert [idx for idx, _ in events] == [0]
        seen.add(id(events[0][1]))
        events.clear()  # as vLLM's worker, once the event completed
    assert backend.completion_events_created == 1 and len(seen) == 1
    kept: list[tuple[int, Any]] = []
    for _ in range(5):  # a caller that keeps its events gets a new one every time
        launch_all(backend, [1], events=kept)
        backend.drain()
    backend.shutdown()
    assert len({id(event) for _, event in kept}) == 5
    assert backend.completion_events_created == 5  # the first reused the dropped one


def test_reused_completion_events_are_recorded_by_the_driver_and_fall_back() -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    calls: list[tuple[int, int]] = []
    results = iter([0, 0, 1])

    def raw_record(event: int, stream: int) -> int:
        calls.append((event, stream))
        return next(results)

    completions = backend._issuer.completions  # type: ignore[union-attr]
    completions.raw_record = raw_record
    store_stream = backend._store_copier.stream.cuda_stream  # type: ignore[union-attr]
    records = []
    for _ in range(5):
        events = launch_all(backend, [1])
        backend.drain()
        event = events[0][1]
        records.append(event.records)
        events.clear()
        del event
    backend.shutdown()
    # First use: PyTorch's record creates the event. Then the driver records it twice; the third
    # call fails, so PyTorch records it (and every later one) again.
    assert records == [1, 1, 1, 2, 3]
    assert len(calls) == 3 and {stream for _, stream in calls} == {store_stream}
    assert completions.raw_record is None


def test_guard_evidence_flows_through_the_group_check() -> None:
    gpu, cpu = make_caches(64, 64)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    events = launch_all(backend, [1] * 40 + [3] * 5)
    backend.drain()
    counters = backend.counters
    backend.shutdown()
    assert counters["stores_checked"] == len(events) == 45
    assert sum(v for k, v in counters.items() if k.startswith("violations_")) == 0


def no_barrier(guard: CopyGuard, transfer_stream: Any, request: CopyRequest) -> None:
    """The stock bug: the transfer stream is not made to wait."""


def unordered(policy: GuardPolicy) -> OrderedCopyBackend:
    return OrderedCopyBackend(policy, barrier=no_barrier)


def test_raise_errors_raises_a_stopped_copys_violation_once_without_blocking() -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(unordered(GuardPolicy.RAISE), gpu, cpu)
    backend.raise_errors()  # nothing failed yet: returns
    launch_all(backend, [1])
    assert wait_until(lambda: bool(backend._errors))  # the copy thread refused the copy
    with pytest.raises(GuardViolation) as caught:
        backend.raise_errors()
    assert caught.value.kind == "no_wait"
    assert [r.reason for r in backend.refused_copies()] == ["no_wait"]
    backend.raise_errors()  # raised once
    backend.shutdown()


def test_missing_barrier_is_raised_or_refused_per_request() -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(unordered(GuardPolicy.RAISE), gpu, cpu)
    events = launch_all(backend, [1, 1])
    with pytest.raises(GuardViolation) as caught:
        backend.drain()
    assert caught.value.kind == "no_wait"
    with pytest.raises(GuardViolation):  # one error per request, raised one per call
        backend.drain()
    backend.drain()
    assert events == [] and backend.counters["violations_no_wait"] == 2
    assert torch.equal(cpu["k"], torch.full_like(cpu["k"], -1))  # nothing was copied
    assert [(r.event_idx, r.reason) for r in backend.refused_copies()] == [(0, "no_wait"), (1, "no_wait")]
    assert backend.counters["refused"] == 2
    backend.shutdown()

    backend = start(unordered(GuardPolicy.REFUSE), gpu, cpu)
    events = launch_all(backend, [2, 2, 2])
    backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert events == [] and [r.event_idx for r in refused] == [0, 1, 2]
    assert {r.reason for r in refused} == {"no_wait"}
    assert backend.counters["refused"] == 3


class Corrupter:
    """A copy call: after each store's copy, overwrite the host copy of each block that
    `corrupts` picks (by default every block divisible by 4, once each; `always`: each time)."""

    def __init__(self, always: bool = False, corrupts: Any = lambda block: block % 4 == 0) -> None:
        self.always = always
        self.corrupts = corrupts
        self.corrupted: set[int] = set()

    def __call__(
        self, copier: Any, src_blocks: Sequence[int], dst_blocks: Sequence[int], plans: Any = None
    ) -> None:
        copy_blocks(copier, src_blocks, dst_blocks, plans)
        if not copier.is_store:
            return
        for target in dst_blocks:
            if self.corrupts(target) and (self.always or target not in self.corrupted):
                self.corrupted.add(target)
                for tensor in copier.dst.values():
                    tensor[target] = -7


def corrupting(*args: Any, always: bool = False, **kwargs: Any) -> OrderedCopyBackend:
    return OrderedCopyBackend(*args, copy_call=Corrupter(always), **kwargs)


def run_verified(backend: OrderedCopyBackend, stores: int = 20) -> dict[str, Any]:
    gpu, cpu = make_caches(4 * stores, 4 * stores)
    start(backend, gpu, cpu)
    events = launch_all(backend, [4] * stores)
    backend.drain()
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    reported = [idx for idx, _ in events]
    good = all(holds(gpu, cpu, range(4 * i, 4 * i + 4), range(4 * i, 4 * i + 4)) for i in reported)
    return {
        "reported": reported,
        "good": good,
        "refused_events": [r.event_idx for r in refused],
        "reasons": {r.reason for r in refused},
        **counters,
    }


def test_verification_recopies_a_corrupt_block_before_reporting_it() -> None:
    result = run_verified(corrupting(GuardPolicy.RAISE, verify_fraction=1.0, verify_seed=0))
    assert result["mismatches"] == result["recopied"] == 20
    assert result["reported"] == list(range(20)) and result["good"]
    assert result["refused_events"] == [] and result["refused"] == 0
    assert result["verified"] == 80


def test_verification_refuses_a_block_that_stays_corrupt() -> None:
    result = run_verified(corrupting(GuardPolicy.RAISE, verify_fraction=1.0, verify_seed=0, always=True))
    assert result["reported"] == []
    assert result["refused_events"] == list(range(20))
    assert result["reasons"] == {"verification_mismatch"}
    assert result["refused"] == result["mismatches"] == 20


def test_a_check_beyond_one_launchs_grid_compares_in_several(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compare_module, "_MAX_PAIRS_PER_LAUNCH", 3)
    result = run_verified(corrupting(GuardPolicy.RAISE, verify_fraction=1.0, verify_seed=0))
    assert result["mismatches"] == result["recopied"] == 20 and result["good"]
    assert result["reported"] == list(range(20))
    assert max(pairs for _, pairs in SIM.kernel.launches) == 3


def test_sampled_verification_keeps_reports_in_order() -> None:
    """Each store drained before the next, so each is a group of its own and which are
    sampled depends on the seed alone, not on how the copy thread's timing groups them."""
    backend = OrderedCopyBackend(
        GuardPolicy.RAISE, verify_fraction=0.1, verify_seed=3, limits=GroupLimits(handover_bytes=0)
    )
    gpu, cpu = make_caches(4 * 300, 4 * 300)
    start(backend, gpu, cpu)
    events: list[tuple[int, Any]] = []
    compute = SimStream()
    with torch.cuda.stream(compute):  # type: ignore[arg-type]
        for idx in range(300):
            blocks = list(range(4 * idx, 4 * idx + 4))
            backend.launch_copy(blocks, blocks, True, idx, events)
            backend.drain()
    counters = backend.counters
    backend.shutdown()
    reported = [idx for idx, _ in events]
    assert reported == list(range(300))
    assert all(holds(gpu, cpu, range(4 * i, 4 * i + 4), range(4 * i, 4 * i + 4)) for i in reported)
    # About a tenth of the 1200 blocks (the seed fixes which).
    assert 60 <= counters["verified"] <= 180
    assert counters["mismatches"] == 0


def test_a_verification_that_fails_is_never_reported_as_good() -> None:
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(8, 8)
    start(backend, gpu, cpu)
    SIM.kernel.fail.add("launch")
    events = launch_all(backend, [2])
    with pytest.raises(CudaDriverError, match="cuLaunchKernel"):
        backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert events == []
    assert [(r.event_idx, r.reason) for r in refused] == [(0, "verification_error")]


def test_verification_compares_behind_the_stores_completion_and_adds_nothing_to_its_call(
    sim: SimEventCalls,
) -> None:
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(8, 8)
    start(backend, gpu, cpu)
    events = launch_all(backend, [3])
    backend.drain()
    compare_stream = backend._verifier.compare_stream.cuda_stream  # type: ignore[union-attr]
    backend.shutdown()
    assert [idx for idx, _ in events] == [0]
    copier = backend._store_copier
    assert copier.source_order == SourceOrder.STREAM  # type: ignore[union-attr]
    assert copier.calls == [([0, 1, 2], [0, 1, 2])]  # type: ignore[union-attr]  # the store alone
    assert SIM.kernel.launches == [(compare_stream, 6)]  # 3 blocks x 2 tensors
    waits = [call for call in sim.calls if call[0] == "wait" and call[1] == compare_stream]
    assert waits == [("wait", compare_stream, events[0][1].cuda_event)]
    assert backend.counters["verified"] == 3 and backend.counters["mismatches"] == 0
    assert SIM.kernel.unloaded == 1


def torch_wait_on_copy_thread(guard: CopyGuard, transfer_stream: Any, request: CopyRequest) -> None:
    """The classic wrong fix, made with PyTorch: not through the guard, so not evidence."""
    transfer_stream.wait_stream(torch.cuda.current_stream())


def guard_wait_on_copy_thread_stream(guard: CopyGuard, transfer_stream: Any, request: CopyRequest) -> None:
    """The same wrong fix through the guard: it waits on an event of the copy thread's stream."""
    own = guard.open_request(True, -1, (), ())  # on the copy thread: its stream
    guard.wait(transfer_stream.cuda_stream, own)


class StaleEvent:
    """Waits, through the guard, on the event of a request made before the first store."""

    stale: Any = None

    def __call__(self, guard: CopyGuard, transfer_stream: Any, request: CopyRequest) -> None:
        guard.wait(transfer_stream.cuda_stream, self.stale)


@pytest.mark.parametrize(
    ("barrier", "kind"),
    [
        (torch_wait_on_copy_thread, "no_wait"),
        (guard_wait_on_copy_thread_stream, "wait_not_on_compute"),
        (StaleEvent(), "stale_record"),
    ],
)
def test_wrong_barriers_are_named_from_the_guards_evidence(barrier: Any, kind: str) -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(OrderedCopyBackend(GuardPolicy.REFUSE, barrier=barrier), gpu, cpu)
    compute = SimStream()
    if isinstance(barrier, StaleEvent):
        with torch.cuda.stream(compute):  # type: ignore[arg-type]
            barrier.stale = backend._guard.open_request(True, -1, (), ())
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(compute):  # type: ignore[arg-type]
        for idx in range(3):
            backend.launch_copy([idx], [idx], True, idx, events)
            backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert events == [] and [r.event_idx for r in refused] == [0, 1, 2]
    assert {r.reason for r in refused} == {kind}
    if barrier is torch_wait_on_copy_thread:
        assert len(TORCH_WAITS) == 3  # it did wait, just not in a way the guard can see


@pytest.mark.parametrize("raw_getter", [True, False])
def test_requests_name_the_callers_current_stream(
    raw_getter: bool, monkeypatch: pytest.MonkeyPatch, sim: SimEventCalls
) -> None:
    if not raw_getter:  # a PyTorch without the private getter: torch.cuda.current_stream
        monkeypatch.delattr(torch._C, "_cuda_getCurrentRawStream")
    gpu, cpu = make_caches(8, 8)
    backend = GatedBackend(GuardPolicy.RAISE)
    start(backend, gpu, cpu)
    first, second = SimStream(), SimStream()
    events: list[tuple[int, Any]] = []
    for idx, compute in enumerate([first, second, first, second]):
        with torch.cuda.stream(compute):  # type: ignore[arg-type]
            backend.launch_copy([idx], [idx], True, idx, events)
    backend.gate.set()
    backend.drain()
    backend.shutdown()
    records = [call[2] for call in sim.calls if call[0] == "record"]
    assert records[:4] == [s.cuda_stream for s in (first, second, first, second)]
    assert backend.counters["stores_checked"] == 4 and len(events) == 4


def test_a_group_waits_once_per_compute_stream_and_on_each_caller_event(
    sim: SimEventCalls,
) -> None:
    """The guard's newest event per compute stream covers the older ones; a caller's
    wait_event is waited on as given, once however many requests passed it."""
    gpu, cpu = make_caches(8, 8)
    backend = GatedBackend(GuardPolicy.RAISE)
    start(backend, gpu, cpu)
    first, second = SimStream(), SimStream()
    shared, own = torch.cuda.Event(), torch.cuda.Event()
    shared.record(first)  # type: ignore[arg-type]
    own.record(second)  # type: ignore[arg-type]
    events: list[tuple[int, Any]] = []
    plan = [(first, shared), (second, None), (first, shared), (second, own), (first, None)]
    for idx, (compute, caller_event) in enumerate(plan):
        with torch.cuda.stream(compute):  # type: ignore[arg-type]
            backend.launch_copy([idx], [idx], True, idx, events, wait_event=caller_event)
    recorded = {call[1]: call[2] for call in sim.calls if call[0] == "record"}
    backend.gate.set()
    backend.drain()
    transfer = backend._store_copier.stream.cuda_stream  # type: ignore[union-attr]
    waits = [(call[1], recorded.get(call[2])) for call in sim.calls if call[0] == "wait"]
    backend.shutdown()
    assert backend.groups == [[0, 1, 2, 3, 4]]
    assert sorted(waits) == sorted([(transfer, first.cuda_stream), (transfer, second.cuda_stream)])
    assert sorted(TORCH_WAITS) == sorted([(transfer, shared.cuda_event), (transfer, own.cuda_event)])
    assert backend.counters["stores_checked"] == 5 and len(events) == 5


def test_the_guards_events_are_pooled_and_destroyed_at_shutdown(sim: SimEventCalls) -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    for _ in range(30):
        launch_all(backend, [1])
        backend.drain()
    created = [call[1] for call in sim.calls if call[0] == "create"]
    backend.shutdown()
    destroyed = [call[1] for call in sim.calls if call[0] == "destroy"]
    assert len(created) == 1 and destroyed == created


def test_a_driver_error_in_the_barrier_is_raised_to_the_caller(sim: SimEventCalls) -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    sim.fail.add("record")
    with pytest.raises(CudaDriverError, match="cuEventRecord"):
        launch_all(backend, [1])
    sim.fail = {"wait"}
    launch_all(backend, [1])
    with pytest.raises(CudaDriverError, match="cuStreamWaitEvent"):
        backend.drain()
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    assert torch.equal(cpu["k"], torch.full_like(cpu["k"], -1))  # nothing was copied
    # The copy whose barrier failed is refused, so an adapter releasing in order moves on.
    assert [(r.event_idx, r.reason) for r in refused] == [(0, "copy_error")]
    assert counters["refused"] == 1


def test_a_failed_copy_is_refused_and_raised_and_later_copies_go_on() -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(GatedBackend(GuardPolicy.RAISE, limits=GroupLimits(max_group=1)), gpu, cpu)
    backend._store_copier.fail_calls = {0}  # type: ignore[union-attr]  # the first group's call
    events = launch_all(backend, [2, 2], events=None)
    backend.gate.set()
    with pytest.raises(BatchCopyError, match="simulated failure"):
        backend.drain()
    backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert [(r.event_idx, r.reason) for r in refused] == [(0, "copy_error")]
    assert [idx for idx, _ in events] == [1] and holds(gpu, cpu, [2, 3], [2, 3])


def test_verified_completion_events_are_reused_too() -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0), gpu, cpu)
    for _ in range(20):
        events = launch_all(backend, [2])
        backend.drain()
        assert [idx for idx, _ in events] == [0]
        events.clear()
    verified = backend.counters["verified"]
    backend.shutdown()
    assert verified == 40 and backend.completion_events_created <= 2


class GatedVerified(GatedBackend):
    """A gated copy thread, and compares that finish only once `open_gates` lets them, so that
    groups wait for their checks together; groups of two requests."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, limits=GroupLimits(max_group=2), **kwargs)
        self.compares_done = threading.Event()
        SIM.events.compares_held = self.compares_done

    def open_gates(self, groups: int) -> None:
        """Let the copy thread issue everything queued; once it has handed `groups` groups to
        the verify thread (every group is: all are sampled), let their compares finish."""
        self.gate.set()
        assert wait_until(lambda: self._verifier.handed_off == groups)  # type: ignore[union-attr]
        self.compares_done.set()


def run_gated_verified(backend: GatedVerified, sizes: list[int]) -> dict[str, Any]:
    """Queue every store before the copy thread starts, so groups wait for their checks
    together; then drain."""
    gpu, cpu = make_caches(sum(sizes), sum(sizes))
    start(backend, gpu, cpu)
    events = launch_all(backend, sizes)
    backend.open_gates(groups=len(sizes) // 2)
    backend.drain()
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    block, good = 0, {}
    for idx, size in enumerate(sizes):
        good[idx] = holds(gpu, cpu, range(block, block + size), range(block, block + size))
        block += size
    reported = [idx for idx, _ in events]
    return {
        "reported": reported,
        "good": all(good[i] for i in reported),
        "refused": [(r.event_idx, r.reason) for r in refused],
        "counters": counters,
        "groups": backend.groups,
        "checks": compared_blocks(gpu),
        "stats": backend.verify_stats,
    }


def test_each_sampled_group_is_checked_once_in_order() -> None:
    """Six groups of four blocks: one check each, in request order."""
    backend = GatedVerified(GuardPolicy.RAISE, verify_fraction=1.0)
    result = run_gated_verified(backend, [2] * 12)
    assert result["reported"] == list(range(12)) and result["good"]
    assert result["checks"] == [list(range(4 * g, 4 * g + 4)) for g in range(6)]
    assert result["counters"]["verified"] == 24 and result["counters"]["mismatches"] == 0
    assert result["stats"]["checks"] == 6


def test_a_mismatch_recopies_and_rechecks_only_its_block() -> None:
    corrupt_block_9 = Corrupter(corrupts=lambda block: block == 9)  # once, after its store's copy
    backend = GatedVerified(GuardPolicy.RAISE, verify_fraction=1.0, copy_call=corrupt_block_9)
    result = run_gated_verified(backend, [2] * 12)
    groups = [list(range(4 * g, 4 * g + 4)) for g in range(6)]
    assert result["checks"] == [*groups[:3], [9], *groups[3:]]  # block 9 again, after its re-copy
    assert result["reported"] == list(range(12)) and result["good"]
    assert result["counters"]["mismatches"] == result["counters"]["recopied"] == 1
    assert result["refused"] == []


def test_a_block_that_stays_corrupt_refuses_only_its_store_and_keeps_order() -> None:
    always_corrupt_block_9 = Corrupter(always=True, corrupts=lambda block: block == 9)
    backend = GatedVerified(GuardPolicy.RAISE, verify_fraction=1.0, copy_call=always_corrupt_block_9)
    result = run_gated_verified(backend, [2] * 12)
    assert result["refused"] == [(4, "verification_mismatch")]  # store 4 holds blocks 8 and 9
    assert result["reported"] == [i for i in range(12) if i != 4] and result["good"]
    assert result["counters"]["refused"] == 1


@pytest.mark.parametrize("names_failing", [True, False])
def test_a_sampled_group_whose_copy_fails_refuses_its_failing_store_and_checks_the_rest_in_order(
    names_failing: bool,
) -> None:
    """The driver fails the copy of store 0's blocks, in the first group (stores 0 and 1): store
    0 is refused; store 1 is copied, sampled on its own blocks, checked and reported; the
    other groups are checked in order."""
    backend = GatedVerified(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(24, 24)
    start(backend, gpu, cpu)
    store = backend._store_copier
    store.fail_blocks, store.names_failing = {0}, names_failing  # type: ignore[union-attr]
    events = launch_all(backend, [2] * 12)
    backend.open_gates(groups=6)  # store 1 alone, then five groups of two
    with pytest.raises(BatchCopyError, match="simulated failure") as caught:
        backend.drain()
    backend.drain()
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    assert "store event 0 (source blocks [0, 1]" in str(caught.value)
    assert [(r.event_idx, r.reason) for r in refused] == [(0, "copy_error")]
    assert [idx for idx, _ in events] == list(range(1, 12))
    assert compared_blocks(gpu) == [[2, 3]] + [list(range(4 * g, 4 * g + 4)) for g in range(1, 6)]
    assert counters["verified"] == 22 and counters["mismatches"] == 0
    assert holds(gpu, cpu, range(2, 24), range(2, 24)) and not holds(gpu, cpu, [0, 1], [0, 1])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_verification_under_concurrent_hand_offs_keeps_order_and_recopies(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No gates: the copy thread hands groups over while checks are made, each compared in
    launches of at most five pairs; every corrupt sampled block is re-copied, reports stay in
    order."""
    import random

    monkeypatch.setattr(compare_module, "_MAX_PAIRS_PER_LAUNCH", 5)
    rng = random.Random(seed)
    sizes = [rng.randint(1, 9) for _ in range(150)]
    backend = corrupting(  # hand over at 16 queued stores of these 64-byte blocks
        GuardPolicy.RAISE, verify_fraction=0.3, verify_seed=seed, limits=GroupLimits(handover_bytes=0)
    )
    gpu, cpu = make_caches(sum(sizes), sum(sizes))
    start(backend, gpu, cpu)
    events = launch_all(backend, sizes)
    backend.drain()
    counters = backend.counters
    refused = backend.refused_copies()
    backend.shutdown()
    assert [idx for idx, _ in events] == list(range(len(sizes))) and refused == []
    assert counters["mismatches"] == counters["recopied"] and counters["refused"] == 0
    assert counters["verified"] > 0


def test_a_backlog_of_queued_requests_hands_the_copy_thread_the_gil(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From the 16th request queued and not yet taken (`handover_backlog`), launch_copy
    sleeps briefly (releasing the GIL); below that it never does."""
    sleeps: list[float] = []
    monkeypatch.setattr(backend_module.time, "sleep", sleeps.append)
    gpu, cpu = make_caches(100, 100)
    assert GroupLimits().handover_backlog == 16
    backend = GatedBackend(GuardPolicy.RAISE, limits=GroupLimits(handover_bytes=0))  # 64-byte blocks
    start(backend, gpu, cpu)
    events = launch_all(backend, [1] * 15)
    assert sleeps == []
    launch_all(backend, [1] * 85, events=events)
    assert len(sleeps) == 85 and set(sleeps) == {backend_module._HANDOVER_SLEEP_S}
    backend.gate.set()
    backend.drain()
    backend.shutdown()
    assert len(events) == 100


@pytest.mark.parametrize(("block_bytes", "handovers"), [(1 << 10, 0), (1 << 20, 85)])
def test_a_backlog_hands_over_only_once_it_holds_handover_bytes(
    block_bytes: int, handovers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small requests pile up without a hand-over until they hold `handover_bytes` (8 MiB):
    below it, the GPU would idle less than a hand-over costs the requesting thread."""
    sleeps: list[float] = []
    monkeypatch.setattr(backend_module.time, "sleep", sleeps.append)
    gpu, cpu = make_caches(100, 100, width=block_bytes // 8)  # two int32 tensors a block
    backend = GatedBackend(GuardPolicy.RAISE)
    assert backend.limits.handover_bytes == 8 << 20
    start(backend, gpu, cpu)
    events = launch_all(backend, [1] * 100)
    backend.gate.set()
    backend.drain()
    backend.shutdown()
    assert len(sleeps) == handovers and len(events) == 100
    assert backend._bytes_launched == backend._bytes_taken == 100 * block_bytes


@pytest.mark.parametrize(
    ("sizes", "handovers"),
    [([90], 0), ([40, 40], 0), ([30] * 3, 1), ([20] * 3, 0), ([20] * 4, 1), ([16] * 6, 3)],
)
def test_a_burst_of_large_requests_hands_over_from_the_third(
    sizes: list[int], handovers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once three or more requests wait holding `handover_burst_bytes` (64 MiB), launch_copy
    hands over at each launch, well before 16 wait; one or two requests, however large (vLLM's
    worker launches a load and a store per step), never."""
    sleeps: list[float] = []
    monkeypatch.setattr(backend_module.time, "sleep", sleeps.append)
    gpu, cpu = make_caches(100, 100, width=(1 << 20) // 8)  # 1 MiB blocks (two tensors)
    backend = GatedBackend(GuardPolicy.RAISE)
    assert backend.limits.handover_burst_bytes == 64 << 20
    start(backend, gpu, cpu)
    events = launch_all(backend, sizes)
    backend.gate.set()
    backend.drain()
    backend.shutdown()
    assert len(sleeps) == handovers and len(events) == len(sizes)


def test_a_failed_store_call_among_waiting_checks_refuses_only_its_group() -> None:
    """Group 1's call fails while group 0 waits for its check: group 1 is refused at once, and
    groups 0 and 2 are checked and reported in request order."""
    gpu, cpu = make_caches(6, 6)
    backend = OrderedCopyBackend(  # blocks sampled one by one: this test is about checks
        GuardPolicy.RAISE, verify_fraction=1.0, verify_cluster_bytes=1, limits=GroupLimits(max_group=1)
    )
    compares_done = SIM.events.compares_held = threading.Event()
    start(backend, gpu, cpu)
    backend._store_copier.fail_calls = {1}  # type: ignore[union-attr]  # the second group's call
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        for idx in range(3):
            blocks = [2 * idx, 2 * idx + 1]
            backend.launch_copy(blocks, blocks, True, idx, events)
    assert wait_until(lambda: backend._verifier.handed_off == 2)  # type: ignore[union-attr]
    assert events == []  # nothing is reported before its check
    compares_done.set()
    with pytest.raises(BatchCopyError, match="simulated failure"):
        backend.drain()
    backend.drain()
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    assert [idx for idx, _ in events] == [0, 2]
    assert [(r.event_idx, r.reason) for r in refused] == [(1, "copy_error")]
    assert counters["verified"] == 4 and counters["mismatches"] == 0


class FailingFirstRecord(SimEvent):
    failed = False

    def record(self, stream: Any = None) -> None:
        if not FailingFirstRecord.failed:
            FailingFirstRecord.failed = True
            raise RuntimeError("CUDA error: simulated cudaEventRecord failure")
        super().record(stream)


def test_a_sampled_group_whose_completion_record_fails_is_refused_and_the_next_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(torch.cuda, "Event", FailingFirstRecord, raising=False)
    FailingFirstRecord.failed = False
    gpu, cpu = make_caches(8, 8)
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0, limits=GroupLimits(max_group=1))
    start(backend, gpu, cpu)
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        backend.launch_copy([0, 1], [0, 1], True, 0, events)
        with pytest.raises(RuntimeError, match="simulated"):
            backend.drain()
        backend.launch_copy([2, 3], [2, 3], True, 1, events)
    backend.drain()
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    assert [idx for idx, _ in events] == [1]
    assert [(r.event_idx, r.reason) for r in refused] == [(0, "copy_error")]
    assert counters["verified"] == 2


def test_a_group_waits_on_the_latest_recorded_event_of_a_shared_stream(sim: SimEventCalls) -> None:
    """Thread A opens (records) first but is pre-empted before its queue.put; thread B, on the
    same stream, opens and queues. The group [B, A] must wait on B's event, the later record,
    not on the last one in queue order. (Found in review.)"""

    gpu, cpu = make_caches(4, 4)
    backend = GatedBackend(GuardPolicy.REFUSE)
    start(backend, gpu, cpu)
    compute = SimStream()
    events: list[tuple[int, Any]] = []
    # Thread A: launch_copy, split at its pre-emption point (after open_request, before put).
    with torch.cuda.stream(compute):  # type: ignore[arg-type]
        request_a = backend._guard.open_request(True, 0, (0,), (0,))

    def thread_b() -> None:
        with torch.cuda.stream(compute):  # type: ignore[arg-type]
            backend.launch_copy([1], [1], True, 1, events)

    b = threading.Thread(target=thread_b)
    b.start()
    b.join()
    backend._queue.put(QueuedCopy(request_a, None, events, None))  # thread A resumes
    backend.gate.set()
    backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert refused == [], f"a request on the shared stream was not ordered: {refused}"
    assert sorted(idx for idx, _ in events) == [0, 1]
    assert holds(gpu, cpu, [0, 1], [0, 1])


def test_a_failed_barrier_wait_returns_the_groups_guard_events(sim: SimEventCalls) -> None:
    """A failed cuStreamWaitEvent still returns the group's events to the pool. (Found in
    review.)"""
    gpu, cpu = make_caches(8, 8)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    sim.fail = {"wait"}
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        backend.launch_copy([0], [0], True, 0, events)
    with pytest.raises(CudaDriverError, match="cuStreamWaitEvent"):
        backend.drain()
    sim.fail = set()
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        backend.launch_copy([1], [1], True, 1, events)
    backend.drain()
    guard = backend._guard
    free, created = len(guard._free_events), guard.events_created
    backend.shutdown()
    assert free == created, f"{created - free} guard event(s) never returned to the pool"


class AnnouncingLock:
    """A lock that notes which threads asked for it (by name), before they wait for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.asked_by: list[str] = []

    def __enter__(self) -> None:
        self.asked_by.append(threading.current_thread().name)
        self.lock.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.lock.release()


def test_shutdown_during_a_launch_waits_for_it_and_leaks_no_event(sim: SimEventCalls) -> None:
    """shutdown() from another thread while launch_copy reads the compute stream (the guard
    reads it under the launch lock) waits until the request is queued: the copy thread issues
    it before it stops, and every event made is destroyed. (Before the guard read the stream
    itself, the read came before the lock and a shutdown could land in between; found in
    review.)"""
    gpu, cpu = make_caches(4, 4)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    compute = SimStream()
    guard = backend._guard
    read = guard._current_stream
    lock = backend._launch_lock = AnnouncingLock()  # type: ignore[assignment]
    stopper = threading.Thread(target=backend.shutdown, name="stopper")
    blocked: list[bool] = []

    def racing_read() -> int:
        stopper.start()
        assert wait_until(lambda: "stopper" in lock.asked_by)
        blocked.append(stopper.is_alive())  # shutdown waits on the lock this launch holds
        return compute.cuda_stream

    guard._current_stream = racing_read
    events: list[tuple[int, Any]] = []
    backend.launch_copy([0], [0], True, 0, events)
    stopper.join()
    guard._current_stream = read
    created = {call[1] for call in sim.calls if call[0] == "create"}
    destroyed = {call[1] for call in sim.calls if call[0] == "destroy"}
    assert blocked == [True] and [idx for idx, _ in events] == [0]
    assert created and created <= destroyed
    assert holds(gpu, cpu, [0], [0])


def test_a_launch_that_waited_for_the_lock_behind_a_shutdown_raises_and_makes_no_event(
    sim: SimEventCalls,
) -> None:
    """A shutdown that takes the launch lock first (closing and queueing its end marker) makes
    a launch waiting for that lock raise, with no guard event made and nothing queued behind
    the marker."""
    gpu, cpu = make_caches(4, 4)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    errors: list[BaseException] = []

    def launch() -> None:
        try:
            with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
                backend.launch_copy([0], [0], True, 0, [])
        except RuntimeError as exc:
            errors.append(exc)

    lock = backend._launch_lock = AnnouncingLock()  # type: ignore[assignment]
    with lock.lock:  # what shutdown() does under the lock
        launcher = threading.Thread(target=launch, name="launcher")
        launcher.start()
        assert wait_until(lambda: lock.asked_by == ["launcher"])  # past the unlocked checks
        backend._closed = True
        backend._queue.put(None)
    launcher.join()
    for thread in backend._threads:
        thread.join(timeout=5.0)
    assert [str(error) for error in errors] == ["launch_copy() cannot follow shutdown()"]
    assert not any(call[0] == "create" for call in sim.calls)
    assert backend._queue.empty()


def test_a_lone_sampled_request_splits_like_any_other_and_is_checked_once() -> None:
    """Verification adds nothing to the stores' calls, so a sampled request to an idle stream
    goes in the same two calls as an unsampled one; its check follows the second."""
    backend = OrderedCopyBackend(  # first calls of 16 blocks of two 32-byte tensors
        GuardPolicy.RAISE, verify_fraction=1.0, limits=GroupLimits(first_group_bytes=16 * 64)
    )
    gpu, cpu = make_caches(40, 40)
    start(backend, gpu, cpu)
    events = launch_all(backend, [40])
    backend.drain()
    calls = backend._store_copier.calls  # type: ignore[union-attr]
    backend.shutdown()
    assert calls == [(list(range(16)), list(range(16))), (list(range(16, 40)), list(range(16, 40)))]
    assert [idx for idx, _ in events] == [0] and backend.counters["verified"] == 40
    assert [pairs for _, pairs in SIM.kernel.launches] == [80]


def test_the_compare_event_is_made_once_reused_and_destroyed_at_shutdown(sim: SimEventCalls) -> None:
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(8, 8)
    start(backend, gpu, cpu)
    for _ in range(20):
        launch_all(backend, [2])
        backend.drain()
    created = [call[1] for call in sim.calls if call[0] == "create"]
    created = [event for event in created if ("query", event) in sim.calls]  # the compare's
    asked = [call[1] for call in sim.calls if call[0] == "query" and call[1] in created]
    backend.shutdown()
    destroyed = {call[1] for call in sim.calls if call[0] == "destroy"}
    assert len(created) == 1 and asked == created * 20
    assert set(created) <= destroyed and SIM.kernel.unloaded == 1


def test_a_failed_poll_of_the_compare_event_refuses_its_group(sim: SimEventCalls) -> None:
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(8, 8)
    start(backend, gpu, cpu)
    sim.fail.add("query")
    events = launch_all(backend, [2])
    with pytest.raises(CudaDriverError, match="cuEventQuery"):
        backend.drain()
    refused = backend.refused_copies()
    sim.fail.clear()
    launch_all(backend, [2], events=events)  # the next check works
    backend.drain()
    backend.shutdown()
    assert [(r.event_idx, r.reason) for r in refused] == [(0, "verification_error")]
    assert [idx for idx, _ in events] == [0]  # the second store, numbered from 0 again


@pytest.mark.parametrize("failing", ["load", "bind"])
def test_a_verify_thread_that_cannot_start_refuses_sampled_groups_and_reports_the_rest(
    failing: str,
    sim: SimEventCalls,
) -> None:
    """Should the compare kernel fail to load (or the verify thread get no context), the error
    is raised to the caller and every sampled group is refused, never reported unverified;
    unsampled groups and loads are still reported, and drain() and shutdown() end."""
    (SIM.kernel.fail if failing == "load" else sim.fail).add(failing)
    backend = OrderedCopyBackend(
        GuardPolicy.RAISE, verify_fraction=0.5, verify_seed=2, limits=GroupLimits(max_group=1)
    )
    gpu, cpu = make_caches(40, 40)
    start(backend, gpu, cpu)
    with pytest.raises(CudaDriverError, match=r"cuModuleLoadData|cuCtxSetCurrent"):
        backend.drain()
    stores = launch_all(backend, [2] * 20)
    backend.drain()
    loads: list[tuple[int, Any]] = []
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        backend.launch_copy([0, 1], [0, 1], False, 0, loads)
    backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    reported = [idx for idx, _ in stores]
    assert refused and {r.reason for r in refused} == {"verification_error"}
    assert sorted(reported + [r.event_idx for r in refused]) == list(range(20))
    assert reported == sorted(reported) and [idx for idx, _ in loads] == [0]
    assert backend.counters["verified"] == 0


def test_the_verify_thread_sleeps_between_asks_until_the_compare_is_done(
    sim: SimEventCalls, monkeypatch: pytest.MonkeyPatch
) -> None:
    sleeps: list[float] = []
    monkeypatch.setattr(backend_module.time, "sleep", sleeps.append)
    sim.not_ready = 3  # the compare event completes at the fourth ask
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(8, 8)
    start(backend, gpu, cpu)
    events = launch_all(backend, [2])
    backend.drain()
    backend.shutdown()
    asks = [call for call in sim.calls if call[0] == "query"]
    assert len(asks) == 4 and len({event for _, event in asks}) == 1
    assert sleeps == [verify_module._POLL_S] * 3
    assert [idx for idx, _ in events] == [0] and backend.counters["verified"] == 2


def test_the_group_cap_reads_its_own_directions_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stores and loads share the completion-event pool, so a store's old event may be
    re-recorded by a load: the idle test asks the store stream itself. (Found in review.)"""
    backend = GatedBackend(GuardPolicy.RAISE, limits=GroupLimits(first_group_bytes=16 * 64))
    gpu, cpu = make_caches(300, 300)  # 16 blocks of 64 bytes in a first group
    start(backend, gpu, cpu)
    load_stream = backend._load_copier.stream  # type: ignore[union-attr]
    monkeypatch.setattr(SimStream, "query", lambda self: self is not load_stream)
    backend._issuer.newest_group_blocks[True] = 200  # type: ignore[union-attr]  # long complete
    events = launch_all(backend, [1] * 40)
    backend.gate.set()
    backend.drain()
    backend.shutdown()
    assert [len(group) for group in backend.groups] == [16, 16, 8]
    assert [idx for idx, _ in events] == list(range(40))


def test_small_blocks_are_verified_in_clusters_of_about_verify_cluster_bytes() -> None:
    """Each check costs host time of its own: with blocks much smaller than the cluster, a
    sampled store is checked whole, and about `fraction` of stores are checked."""
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.2, verify_seed=11)
    gpu, cpu = make_caches(40, 40)  # 64-byte blocks: a 4 MiB cluster spans any store
    start(backend, gpu, cpu)
    checked = []
    for _ in range(100):
        before = backend.counters["verified"]
        launch_all(backend, [40])
        backend.drain()
        checked.append(backend.counters["verified"] - before)
    backend.shutdown()
    assert set(checked) == {0, 40}
    assert 8 <= checked.count(40) <= 35  # 20 expected; binomial(100, 0.2) within 3.75 sd


def test_a_group_that_fails_before_its_copy_is_issued_is_refused() -> None:
    """Should sampling fail, the group was never copied: its copies are refused, the error is
    raised, and the backend goes on with the next group. (The barrier and the driver call had
    this already.)"""
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(8, 8)
    start(backend, gpu, cpu)
    sampler = backend._sampler
    assert sampler is not None
    sample = sampler.sample

    def failing_sample(blocks: int, cluster: int = 1) -> list[int]:
        sampler.sample = sample  # type: ignore[method-assign]  # only the first group fails
        raise MemoryError("simulated: sampling failed")

    sampler.sample = failing_sample  # type: ignore[method-assign]
    first = launch_all(backend, [2])
    with pytest.raises(MemoryError, match="simulated"):
        backend.drain()
    refused = backend.refused_copies()
    second = launch_all(backend, [2])
    backend.drain()
    backend.shutdown()
    assert first == [] and [(r.event_idx, r.reason) for r in refused] == [(0, "copy_error")]
    assert [idx for idx, _ in second] == [0] and backend.counters["refused"] == 1


def gated_burst(
    sizes: Sequence[int], width: int = 8
) -> tuple[list[list[int]], list[tuple[int, Any]], GatedBackend]:
    """gated_groups for two tensors of `width` int32 values a block."""
    gpu, cpu = make_caches(sum(sizes), sum(sizes), width=width)
    backend = start(GatedBackend(GuardPolicy.RAISE), gpu, cpu)
    events = launch_all(backend, sizes)
    backend.gate.set()
    backend.drain()
    backend.shutdown()
    assert holds(gpu, cpu, range(sum(sizes)), range(sum(sizes)))
    return backend.groups, events, backend  # type: ignore[return-value]


def test_a_burst_of_small_blocks_is_planned_on_the_requesting_thread() -> None:
    """Blocks below `plan_early_below` (32 KiB): a request of 64 descriptors or more launched
    while others wait in the queue is planned by launch_copy; the copy thread plans only the
    rest and issues the group's plans in one call. Every copy lands."""
    groups, events, backend = gated_burst([32, 32, 32, 32])  # 32 blocks x 2 tensors
    copier = backend._store_copier
    assert copier.planned_on == ["MainThread"] * 3 + ["kvguard-copy"]  # type: ignore[union-attr]
    assert copier.planned_calls == 1 and groups == [[0, 1, 2, 3]]  # type: ignore[union-attr]
    assert [idx for idx, _ in events] == [0, 1, 2, 3]


@pytest.mark.parametrize(("sizes", "width"), [([31] * 4, 8), ([64], 8), ([32] * 4, (32 << 10) // 4)])
def test_other_requests_are_planned_on_the_copy_thread(sizes: list[int], width: int) -> None:
    """Below 64 descriptors the copy thread plans a group's blocks as one list; a request that
    finds the queue empty (one per engine step) costs the requesting thread no planning, nor
    does a burst of blocks of 32 KiB or more, whose copies the GPU, not the driver, paces."""
    _, events, backend = gated_burst(sizes, width)
    copier = backend._store_copier
    assert copier.planned_on == [] and copier.planned_calls == 0  # type: ignore[union-attr]
    assert len(events) == len(sizes)


def test_a_bad_block_list_in_a_burst_is_refused_and_raised_from_the_copy_thread() -> None:
    """launch_copy does not raise on a block id the requesting thread's planning rejected: the
    copy thread plans it again, refuses its group and raises, as without the early plan."""
    gpu, cpu = make_caches(200, 200)
    backend = start(GatedBackend(GuardPolicy.RAISE, limits=GroupLimits(max_group=1)), gpu, cpu)
    events = launch_all(backend, [32, 32])
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        backend.launch_copy(list(range(168, 200)), list(range(180, 212)), True, 2, events)
    backend.gate.set()
    with pytest.raises(IndexError, match="out of range"):
        backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert [(r.event_idx, r.reason) for r in refused] == [(2, "copy_error")]
    assert [idx for idx, _ in events] == [0, 1] and holds(gpu, cpu, range(64), range(64))


def test_a_verified_burst_planned_early_is_checked_after_its_joined_call_and_recopied() -> None:
    """A burst planned by launch_copy, with every block sampled: the group's one driver call
    carries the joined plans, one check follows it, and corrupt blocks are re-copied and
    checked again before the report."""
    backend = GatedBackend(GuardPolicy.RAISE, verify_fraction=1.0, verify_seed=0, copy_call=Corrupter())
    gpu, cpu = make_caches(128, 128)
    start(backend, gpu, cpu)
    events = launch_all(backend, [32] * 4)
    backend.gate.set()
    backend.drain()
    copier = backend._store_copier
    counters, refused = backend.counters, backend.refused_copies()
    backend.shutdown()
    assert copier.planned_on == ["MainThread"] * 3 + ["kvguard-copy"]  # type: ignore[union-attr]
    assert copier.planned_calls == 1  # type: ignore[union-attr]
    assert [pairs for _, pairs in SIM.kernel.launches] == [128 * 2, 32 * 2]  # check, re-check
    assert [idx for idx, _ in events] == [0, 1, 2, 3] and refused == []
    assert counters["verified"] == 128 and counters["mismatches"] == counters["recopied"] == 32
    assert holds(gpu, cpu, range(128), range(128))
