"""One bad request must not take its neighbours down (issue 25): a request whose copy cannot be
made (a block out of range, a driver error on its copy) is refused alone, with its error naming
it; the other requests of its group are copied and reported in request order. On the CPU
stand-ins (runtime_sim), whose driver fails the copies of chosen source blocks, naming the
failing plan (CUDA 12.8's failIdx) or not (CUDA 13's entry point)."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from runtime_sim import GatedBackend, SimEventCalls, SimStream, install, make_caches, start, wait_until

from kvguard.runtime import BatchCopyError, GuardPolicy, OrderedCopyBackend
from kvguard.runtime.intake import GroupLimits

GPU_BLOCKS = CPU_BLOCKS = 64


@pytest.fixture(autouse=True)
def sim(monkeypatch: pytest.MonkeyPatch) -> SimEventCalls:
    return install(monkeypatch)


def caches(blocks: int = GPU_BLOCKS) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """GPU blocks hold 1000 * tensor + block, host blocks 5000 + 1000 * tensor + block."""
    gpu, cpu = make_caches(blocks, blocks)
    for name in cpu:
        cpu[name].copy_(gpu[name] + 5000)  # in place: the tensor stays a stand-in for pinned
    return gpu, cpu


def landed(
    gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor], is_store: bool, src: list[int], dst: list[int]
) -> bool:
    source, target = (gpu, cpu) if is_store else (cpu, gpu)
    return all(torch.equal(target[name][dst], source[name][src]) for name in gpu)


def drain_errors(backend: OrderedCopyBackend) -> list[BaseException]:
    """Every copy-thread error, one per drain() as a caller meets them."""
    errors: list[BaseException] = []
    while True:
        try:
            backend.drain()
            return errors
        except Exception as exc:
            errors.append(exc)
            assert len(errors) < 100


ISSUE_STORES = [([1, 2], [3, 4]), ([1, 999], [3, 4]), ([5], [6])]  # issue 25, as reported


def test_the_issues_three_stores_refuse_only_the_one_with_a_block_out_of_range() -> None:
    """policy refuse, a 64-block cache, three stores taken as one group: source block 999
    refuses store 1 alone; stores 0 and 2 are copied and reported in order, and the error
    reaches the caller naming store 1's direction, event index and blocks."""
    gpu, cpu = caches()
    backend = start(GatedBackend(GuardPolicy.REFUSE), gpu, cpu)
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        for idx, (src, dst) in enumerate(ISSUE_STORES):
            backend.launch_copy(src, dst, True, idx, events)
    backend.gate.set()
    with pytest.raises(IndexError) as caught:
        backend.drain()
    backend.drain()  # one error: the neighbours raised nothing
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    assert backend.groups == [[0, 1, 2]]  # they were one group
    assert str(caught.value) == (
        "kvguard refused store event 1 (source blocks [1, 999] -> destination blocks [3, 4]): "
        "source block 999 is out of range: the source cache has 64 blocks"
    )
    assert [(r.event_idx, r.is_store, r.src_blocks, r.dst_blocks, r.reason) for r in refused] == [
        (1, True, (1, 999), (3, 4), "copy_error")
    ]
    assert [idx for idx, _ in events] == [0, 2]
    assert events[0][1] is events[1][1]  # still one group: one completion event
    assert landed(gpu, cpu, True, [1, 2, 5], [3, 4, 6])
    assert counters["refused"] == 1 and counters["stores_checked"] == 3


@pytest.mark.parametrize("is_store", [True, False])
@pytest.mark.parametrize("side", ["source", "destination"])
def test_a_block_out_of_range_on_either_side_refuses_only_its_request(is_store: bool, side: str) -> None:
    gpu, cpu = caches()
    before = {name: (gpu[name].clone(), cpu[name].clone()) for name in gpu}
    backend = start(GatedBackend(GuardPolicy.RAISE), gpu, cpu)
    requests = [([0, 1], [10, 11]), ([2, 3], [12, 13]), ([4], [14]), ([5, 6], [15, 16])]
    requests[1] = ([2, 64], [12, 13]) if side == "source" else ([2, 3], [12, 64])
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        for idx, (src, dst) in enumerate(requests):
            backend.launch_copy(src, dst, is_store, idx, events)
    backend.gate.set()
    errors = drain_errors(backend)
    refused = backend.refused_copies()
    backend.shutdown()
    direction = "store" if is_store else "load"
    assert backend.groups == [[0, 1, 2, 3]]
    assert len(errors) == 1 and isinstance(errors[0], IndexError)
    assert str(errors[0]).startswith(
        f"kvguard refused {direction} event 1 (source blocks "
        f"{requests[1][0]} -> destination blocks {requests[1][1]}): "
        f"{side} block 64 is out of range"
    )
    assert [(r.event_idx, r.reason) for r in refused] == [(1, "copy_error")]
    assert [idx for idx, _ in events] == [0, 2, 3]
    for idx in (0, 2, 3):
        assert landed(gpu, cpu, is_store, *map(list, requests[idx]))
    target = cpu if is_store else gpu
    untouched = 1 if is_store else 0  # the bad request's destination blocks are as they were
    assert all(torch.equal(target[name][12], before[name][untouched][12]) for name in gpu)


def test_a_bad_request_planned_on_the_requesting_thread_burst_is_refused_alone() -> None:
    """A burst whose requests launch_copy planned (small blocks, 64 descriptors or more, the
    queue not empty): the one it could not plan is refused alone, the others keep their plans
    and go in one call."""
    gpu, cpu = caches(128)
    backend = start(GatedBackend(GuardPolicy.RAISE), gpu, cpu)
    events: list[tuple[int, Any]] = []
    requests = [list(range(0, 32)), [*range(32, 63), 200], list(range(64, 96))]
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        for idx, blocks in enumerate(requests):
            backend.launch_copy(blocks, blocks, True, idx, events)
    backend.gate.set()
    errors = drain_errors(backend)
    refused = backend.refused_copies()
    copier = backend._store_copier
    backend.shutdown()
    assert copier.planned_on[:1] == ["MainThread"]  # type: ignore[union-attr]  # request 2's plan
    assert len(errors) == 1 and "store event 1 (source blocks [32, 33" in str(errors[0])
    assert "source block 200 is out of range" in str(errors[0])
    assert [(r.event_idx, r.reason) for r in refused] == [(1, "copy_error")]
    assert [idx for idx, _ in events] == [0, 2]
    assert copier.calls == [(requests[0] + requests[2], requests[0] + requests[2])]  # type: ignore[union-attr]
    assert landed(gpu, cpu, True, requests[0] + requests[2], requests[0] + requests[2])


def launch_group(backend: GatedBackend, sizes: list[int], events: list[tuple[int, Any]]) -> list[list[int]]:
    blocks, start_block = [], 0
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        for idx, size in enumerate(sizes):
            blocks.append(list(range(start_block, start_block + size)))
            start_block += size
            backend.launch_copy(blocks[-1], blocks[-1], True, idx, events)
    return blocks


@pytest.mark.parametrize("names_failing", [True, False])
def test_a_driver_error_refuses_only_the_request_whose_copy_fails(names_failing: bool) -> None:
    """The driver fails the copy of request 2's blocks. Naming the plan (failIdx), it costs
    the group a call of one plan a request and a call for the rest; naming none, a call for
    each request alone as well. Either way only request 2 is refused."""
    gpu, cpu = caches()
    backend = start(GatedBackend(GuardPolicy.RAISE), gpu, cpu)
    copier = backend._store_copier
    events: list[tuple[int, Any]] = []
    blocks = launch_group(backend, [2, 3, 1, 2, 4], events)
    copier.fail_blocks, copier.names_failing = {blocks[2][0]}, names_failing  # type: ignore[union-attr]
    backend.gate.set()
    errors = drain_errors(backend)
    refused = backend.refused_copies()
    backend.shutdown()
    good = [0, 1, 3, 4]
    everything = [b for request in blocks for b in request]
    rest = [b for i in good for b in blocks[i]]
    expected_calls = [everything, everything]  # as one list, then as one plan a request
    expected_calls += [rest] if names_failing else blocks  # the rest together, or each alone
    assert [src for src, _ in copier.calls] == expected_calls  # type: ignore[union-attr]
    assert len(errors) == 1 and isinstance(errors[0], BatchCopyError)
    assert str(errors[0]).startswith(
        "kvguard refused store event 2 (source blocks [5] -> destination blocks [5]): "
        "cuMemcpyBatchAsync failed with CUDA_ERROR_INVALID_VALUE (1): simulated failure of a copy"
    )
    assert [(r.event_idx, r.reason) for r in refused] == [(2, "copy_error")]
    assert [idx for idx, _ in events] == good
    assert len({id(event) for _, event in events}) == 1  # the group's one completion event
    assert landed(gpu, cpu, True, rest, rest) and not landed(gpu, cpu, True, blocks[2], blocks[2])


def test_a_driver_error_on_a_call_planned_per_request_names_its_request_at_once() -> None:
    """Requests planned by launch_copy go to the driver one plan a request from the start: the
    failing copy's plan is the failing request, refused without another call for the group."""
    gpu, cpu = caches(128)
    backend = start(GatedBackend(GuardPolicy.RAISE), gpu, cpu)
    copier = backend._store_copier
    events: list[tuple[int, Any]] = []
    blocks = launch_group(backend, [32, 32, 32], events)  # requests 1 and 2 planned early
    copier.fail_blocks = {blocks[1][3]}  # type: ignore[union-attr]
    backend.gate.set()
    errors = drain_errors(backend)
    refused = backend.refused_copies()
    backend.shutdown()
    assert copier.planned_on == ["MainThread"] * 2 + ["kvguard-copy"]  # type: ignore[union-attr]
    assert [len(src) for src, _ in copier.calls] == [96, 64]  # type: ignore[union-attr]
    assert len(errors) == 1 and "store event 1 (source blocks [32, 33" in str(errors[0])
    assert [(r.event_idx, r.reason) for r in refused] == [(1, "copy_error")]
    assert [idx for idx, _ in events] == [0, 2]
    assert landed(gpu, cpu, True, blocks[0] + blocks[2], blocks[0] + blocks[2])


def test_a_call_that_fails_once_refuses_nothing_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    """A whole call's error that a second call does not repeat: every request is copied and
    reported, nothing is raised, and the failure is logged."""
    gpu, cpu = caches()
    backend = start(GatedBackend(GuardPolicy.RAISE), gpu, cpu)
    copier = backend._store_copier
    copier.fail_calls = {0}  # type: ignore[union-attr]
    events: list[tuple[int, Any]] = []
    blocks = launch_group(backend, [2, 2, 2], events)
    backend.gate.set()
    assert drain_errors(backend) == []
    backend.shutdown()
    assert backend.refused_copies() == [] and [idx for idx, _ in events] == [0, 1, 2]
    assert landed(gpu, cpu, True, blocks[0] + blocks[1] + blocks[2], blocks[0] + blocks[1] + blocks[2])
    assert "the call for store events [0, 1, 2] failed and went through when issued again" in caplog.text


def test_a_refused_requests_error_reaches_the_callers_next_call_naming_it() -> None:
    """Launched while the copy thread waits, a load with a bad block is refused with its
    neighbours copied; the caller's next launch_copy raises its error (event index, direction,
    blocks) and queues nothing; the call after it goes through."""
    gpu, cpu = caches()
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    events: list[tuple[int, Any]] = []
    compute = SimStream()
    with torch.cuda.stream(compute):  # type: ignore[arg-type]
        backend.launch_copy([0], [0], False, 7, events)
        backend.launch_copy([1, 100], [1, 2], False, 8, events)
        backend.launch_copy([3], [3], False, 9, events)
    assert wait_until(lambda: len(events) == 2 and bool(backend._errors))
    with torch.cuda.stream(compute), pytest.raises(IndexError) as caught:  # type: ignore[arg-type]
        backend.launch_copy([4], [4], False, 10, events)
    assert str(caught.value) == (
        "kvguard refused load event 8 (source blocks [1, 100] -> destination blocks [1, 2]): "
        "source block 100 is out of range: the source cache has 64 blocks"
    )
    backend.raise_errors()  # raised once
    with torch.cuda.stream(compute):  # type: ignore[arg-type]
        backend.launch_copy([5], [5], False, 11, events)
    backend.drain()
    refused = backend.refused_copies()
    backend.shutdown()
    assert [idx for idx, _ in events] == [7, 9, 11]
    assert [(r.event_idx, r.is_store, r.reason) for r in refused] == [(8, False, "copy_error")]
    assert landed(gpu, cpu, False, [0, 3, 5], [0, 3, 5])


KINDS = st.sampled_from(["good", "good", "good", "source", "destination", "driver"])


@settings(
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    requests=st.lists(st.tuples(st.integers(1, 4), st.booleans(), KINDS), min_size=1, max_size=10),
    names_failing=st.booleans(),
    max_group=st.integers(1, 12),
    early=st.booleans(),
)
def test_any_mix_of_bad_requests_refuses_exactly_them_and_reports_the_rest_in_order(
    requests: list[tuple[int, bool, str]],
    names_failing: bool,
    max_group: int,
    early: bool,
) -> None:
    """Requests of 1 to 4 blocks, stores or loads, some with a source or destination block out
    of range or a copy the driver fails: each bad one is refused, with one error naming it; the
    good ones are copied and reported in request order; no bad one writes a block."""
    gpu, cpu = caches()
    before = {name: (gpu[name].clone(), cpu[name].clone()) for name in gpu}
    limits = GroupLimits(max_group=max_group)
    if early:  # launch_copy plans the requests that find others queued
        limits = GroupLimits(max_group=max_group, plan_early_below=1 << 30)
    backend = GatedBackend(GuardPolicy.RAISE, limits=limits)
    start(backend, gpu, cpu)
    for copier in (backend._store_copier, backend._load_copier):
        copier.names_failing = names_failing  # type: ignore[union-attr]
    events: list[tuple[int, Any]] = []
    blocks: list[tuple[list[int], list[int]]] = []
    first = 0
    with torch.cuda.stream(SimStream()):  # type: ignore[arg-type]
        for idx, (size, is_store, kind) in enumerate(requests):
            src, dst = list(range(first, first + size)), list(range(first, first + size))
            first += size
            if kind == "source":
                src[-1] = GPU_BLOCKS + idx
            elif kind == "destination":
                dst[0] = -1 - idx
            elif kind == "driver":
                copier = backend._store_copier if is_store else backend._load_copier
                copier.fail_blocks.add(src[size // 2])  # type: ignore[union-attr]
            blocks.append((src, dst))
            backend.launch_copy(src, dst, is_store, idx, events)
    backend.gate.set()
    errors = drain_errors(backend)
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    bad = [idx for idx, (_, _, kind) in enumerate(requests) if kind != "good"]
    good = [idx for idx, (_, _, kind) in enumerate(requests) if kind == "good"]
    assert [idx for idx, _ in events] == good
    assert sorted((r.event_idx, r.reason) for r in refused) == [(idx, "copy_error") for idx in bad]
    assert counters["refused"] == len(bad)
    named = []
    for error in errors:
        assert isinstance(error, IndexError if "out of range" in str(error) else BatchCopyError)
        named.append(int(str(error).split(" event ")[1].split(" ")[0]))
    assert sorted(named) == bad  # one error per refused request, naming it
    for idx, error in zip(named, errors, strict=True):
        src, dst = blocks[idx]
        direction = "store" if requests[idx][1] else "load"
        assert str(error).startswith(
            f"kvguard refused {direction} event {idx} (source blocks {src} -> destination blocks {dst}): "
        )
    for idx in good:
        assert landed(gpu, cpu, requests[idx][1], *blocks[idx])
    for idx in bad:  # nothing of a refused request was written
        is_store = requests[idx][1]
        targets = [b for b in blocks[idx][1] if 0 <= b < GPU_BLOCKS]
        for name in gpu:
            now = cpu[name] if is_store else gpu[name]
            was = before[name][1] if is_store else before[name][0]
            assert torch.equal(now[targets], was[targets])
