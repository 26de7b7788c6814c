"""OrderedCopyBackend's threads on CPU stand-ins for CUDA (runtime_sim): group cap, completion
event reuse, guard integration, verification by read-back and FIFO reports."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest
import torch
from runtime_sim import SimCopier, SimStream, holds, install, make_caches, start

from kvguard.runtime import GuardPolicy, GuardViolation, OrderedCopyBackend
from kvguard.runtime.backend import _Copy


@pytest.fixture(autouse=True)
def sim(monkeypatch: pytest.MonkeyPatch) -> None:
    install(monkeypatch)


class GatedBackend(OrderedCopyBackend):
    """The copy thread starts taking requests only when the gate opens; records its groups."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = threading.Event()
        self.groups: list[list[int]] = []

    def _copy_loop(self) -> None:
        self.gate.wait()
        super()._copy_loop()

    def _issue(self, group: list[_Copy]) -> None:
        self.groups.append([copy.request.event_idx for copy in group])
        super()._issue(group)


def launch_all(backend: OrderedCopyBackend, sizes: Sequence[int], stores: Sequence[bool] | None = None,
               events: list[tuple[int, Any]] | None = None) -> list[tuple[int, Any]]:
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


def gated_groups(sizes: Sequence[int], stores: Sequence[bool] | None = None,
                 **attributes: int) -> tuple[list[list[int]], list[tuple[int, Any]], GatedBackend]:
    gpu, cpu = make_caches(sum(sizes), sum(sizes))
    backend = GatedBackend(GuardPolicy.RAISE)
    for name, value in attributes.items():
        setattr(backend, name, value)
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
        ([1] * 300, [list(range(256)), list(range(256, 300))]),  # 256 blocks, then the rest
        ([16] * 20, [list(range(16)), list(range(16, 20))]),
        ([100, 100, 100], [[0, 1], [2]]),  # a third would pass 256: it starts the next group
        ([300, 1], [[0], [1]]),  # a request above the cap is issued alone
        ([1, 300, 1], [[0], [1], [2]]),
        ([255, 1, 1], [[0, 1], [2]]),
    ],
)
def test_group_merges_requests_only_below_the_block_cap(
    sizes: list[int], expected: list[list[int]]
) -> None:
    groups, events, _ = gated_groups(sizes)
    assert groups == expected
    assert [idx for idx, _ in events] == list(range(len(sizes)))  # FIFO
    for group in expected:  # one completion event per group, shared by its requests
        assert len({id(events[i][1]) for i in group}) == 1


def test_group_caps_are_attributes() -> None:
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
    time.sleep(0.05)
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
    began = time.monotonic()
    backend.shutdown()  # the None behind the copies may end a group: the thread must still stop
    assert time.monotonic() - began < 5
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

    backend._raw_record = raw_record
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
    assert backend._raw_record is None


def test_guard_evidence_flows_through_the_group_check() -> None:
    gpu, cpu = make_caches(64, 64)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    events = launch_all(backend, [1] * 40 + [3] * 5)
    backend.drain()
    counters = backend.counters
    backend.shutdown()
    assert counters["stores_checked"] == len(events) == 45
    assert sum(v for k, v in counters.items() if k.startswith("violations_")) == 0


class Unordered(OrderedCopyBackend):
    def _wait_for_compute(self, transfer_stream: Any, compute_done: Any) -> None:
        pass


def test_missing_barrier_is_raised_or_refused_per_request() -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(Unordered(GuardPolicy.RAISE), gpu, cpu)
    events = launch_all(backend, [1, 1])
    with pytest.raises(GuardViolation) as caught:
        backend.drain()
    assert caught.value.kind == "no_wait"
    with pytest.raises(GuardViolation):  # one error per request, raised one per call
        backend.drain()
    backend.drain()
    assert events == [] and backend.counters["violations_no_wait"] == 2
    assert torch.equal(cpu["k"], torch.full_like(cpu["k"], -1))  # nothing was copied
    backend.shutdown()

    backend = start(Unordered(GuardPolicy.REFUSE), gpu, cpu)
    events = launch_all(backend, [2, 2, 2])
    backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert events == [] and [r.event_idx for r in refused] == [0, 1, 2]
    assert {r.reason for r in refused} == {"no_wait"}
    assert backend.counters["refused"] == 3


class Corrupting(OrderedCopyBackend):
    """After each store's copy, overwrite the host copy of every block divisible by 4."""

    always = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.corrupted: set[int] = set()

    def _issue_copy(self, copier: Any, src_blocks: Sequence[int], dst_blocks: Sequence[int]) -> None:
        super()._issue_copy(copier, src_blocks, dst_blocks)
        if not copier.is_store:
            return
        for target in dst_blocks:
            if target % 4 == 0 and (self.always or target not in self.corrupted):
                self.corrupted.add(target)
                for tensor in self._cpu_caches.values():
                    tensor[target] = -7


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
    return {"reported": reported, "good": good, "refused_events": [r.event_idx for r in refused],
            "reasons": {r.reason for r in refused}, **counters}


def test_verification_recopies_a_corrupt_block_before_reporting_it() -> None:
    result = run_verified(Corrupting(GuardPolicy.RAISE, verify_fraction=1.0, verify_seed=0))
    assert result["mismatches"] == result["recopied"] == 20
    assert result["reported"] == list(range(20)) and result["good"]
    assert result["refused_events"] == [] and result["refused"] == 0
    assert result["verified"] == 80


def test_verification_refuses_a_block_that_stays_corrupt() -> None:
    backend = Corrupting(GuardPolicy.RAISE, verify_fraction=1.0, verify_seed=0)
    backend.always = True
    result = run_verified(backend)
    assert result["reported"] == []
    assert result["refused_events"] == list(range(20))
    assert result["reasons"] == {"verification_mismatch"}
    assert result["refused"] == result["mismatches"] == 20


def test_verification_reads_back_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    from kvguard.runtime import backend as backend_module

    monkeypatch.setattr(backend_module, "_READBACK_ROWS", 3)  # 80 sampled blocks: 27 chunks
    result = run_verified(Corrupting(GuardPolicy.RAISE, verify_fraction=1.0, verify_seed=0))
    assert result["mismatches"] == result["recopied"] == 20 and result["good"]
    assert result["reported"] == list(range(20))


def test_sampled_verification_keeps_reports_in_order() -> None:
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.1, verify_seed=3)
    result = run_verified(backend, stores=300)
    assert result["reported"] == list(range(300)) and result["good"]
    assert 60 <= result["verified"] <= 180 and result["mismatches"] == 0  # 120 expected


class FailingCheck(OrderedCopyBackend):
    def _start_check(self, src: list[int], dst: list[int], after: Any) -> Any:
        raise RuntimeError("read-back failed")


def test_a_verification_that_fails_is_never_reported_as_good() -> None:
    backend = FailingCheck(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(8, 8)
    start(backend, gpu, cpu)
    events = launch_all(backend, [2])
    with pytest.raises(RuntimeError, match="read-back failed"):
        backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert events == []
    assert [(r.event_idx, r.reason) for r in refused] == [(0, "verification_error")]


def test_readback_copier_reads_host_blocks_in_stream_order() -> None:
    backend = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=1.0)
    gpu, cpu = make_caches(8, 8)
    start(backend, gpu, cpu)
    backend.shutdown()
    readback = backend._readback
    assert isinstance(readback, SimCopier)
    assert readback.src == cpu and readback.stream is backend._verify_stream
    assert readback.source_order.name == "STREAM"
    assert all(rows.shape[1:] == gpu[name].shape[1:] for name, rows in backend._staging.items())


class CopyThreadCurrentStream(OrderedCopyBackend):
    def _wait_for_compute(self, transfer_stream: Any, compute_done: Any) -> None:
        transfer_stream.wait_stream(torch.cuda.current_stream())


class StaleEvent(OrderedCopyBackend):
    stale: Any = None

    def _wait_for_compute(self, transfer_stream: Any, compute_done: Any) -> None:
        transfer_stream.wait_event(self.stale)


@pytest.mark.parametrize(
    ("variant", "kind"),
    [(CopyThreadCurrentStream, "wait_not_on_compute"), (StaleEvent, "stale_record")],
)
def test_wrong_barriers_are_named_from_the_trace_evidence(
    variant: type[OrderedCopyBackend], kind: str
) -> None:
    gpu, cpu = make_caches(8, 8)
    backend = start(variant(GuardPolicy.REFUSE), gpu, cpu)
    compute = SimStream()
    if isinstance(backend, StaleEvent):
        backend.stale = torch.cuda.Event()
        backend.stale.record(compute)
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(compute):  # type: ignore[arg-type]
        for idx in range(3):
            backend.launch_copy([idx], [idx], True, idx, events)
            backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    if kind == "stale_record":  # a thread's first request accepts any record on its stream
        assert [idx for idx, _ in events] == [0] and [r.event_idx for r in refused] == [1, 2]
    else:
        assert events == [] and [r.event_idx for r in refused] == [0, 1, 2]
    assert {r.reason for r in refused} == {kind}


@pytest.mark.parametrize("cached", [True, False])
def test_requests_name_the_callers_current_stream(
    cached: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not cached:  # a PyTorch without the private getter: torch.cuda.current_stream each time
        monkeypatch.setattr(torch._C, "_cuda_getCurrentStream", None, raising=False)
    gpu, cpu = make_caches(8, 8)
    backend = GatedBackend(GuardPolicy.RAISE)
    start(backend, gpu, cpu)
    seen: list[int] = []
    original = backend._guard.open_request

    def open_request(compute_stream: int, *args: Any) -> Any:
        seen.append(compute_stream)
        return original(compute_stream, *args)

    backend._guard.open_request = open_request  # type: ignore[method-assign]
    first, second = SimStream(), SimStream()
    events: list[tuple[int, Any]] = []
    for idx, compute in enumerate([first, second, first, second]):
        with torch.cuda.stream(compute):  # type: ignore[arg-type]
            backend.launch_copy([idx], [idx], True, idx, events)
    backend.gate.set()
    backend.drain()
    backend.shutdown()
    assert seen == [s.cuda_stream for s in (first, second, first, second)]
    assert len(backend._streams) == (2 if cached else 0)
    assert backend.counters["stores_checked"] == 4 and len(events) == 4


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
