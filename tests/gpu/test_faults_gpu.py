"""Fault cases on the device (issue 25): one bad request in a group is refused alone, with its
error naming it; the other requests of the group are copied, still ordered behind the compute
stream, and reported in request order.

Three faults: a block out of range (the planner's), a driver error naming the failing copy
(failIdx, as CUDA 12.8's entry point reports one; made here in front of the driver, which is
not called for that batch), and a real driver error naming no copy (the driver given invalid
attributes for every call that copies the poisoned request's block). Figures go to
proof_results["fault_isolation"].
"""

from __future__ import annotations

import ctypes
from typing import Any

import pytest
import torch
from gpu_helpers import SLEEP_CYCLES, GatedBackend, low_priority_stream, make_caches, write_blocks

from kvguard.runtime import BatchCopyError, GuardPolicy, OrderedCopyBackend
from kvguard.runtime.batch_copy import BatchCopier
from kvguard.runtime.driver import CUmemcpyAttributes

CUDA_ERROR_INVALID_VALUE = 1


class FaultyEntry:
    """cuMemcpyBatchAsync as BatchCopier calls it, failing every call with a copy that reads
    the byte at `poisoned` (a source address). `named`: the call fails here, the driver not
    called, with CUDA_ERROR_INVALID_VALUE and failIdx that copy's descriptor. Else the driver
    is given the call with invalid attributes (srcAccessOrder 0) and fails it itself."""

    def __init__(self, entry: Any, poisoned: int, named: bool) -> None:
        self.entry, self.poisoned, self.named = entry, poisoned, named
        self.calls = 0
        self.answers: list[tuple[int, int | None]] = []  # of the calls that copied it

    def __call__(
        self, dsts: int, srcs: int, sizes: int, count: int, attrs: CUmemcpyAttributes, stream: int
    ) -> tuple[int, int | None]:
        self.calls += 1
        starts = (ctypes.c_int64 * count).from_address(srcs)
        lengths = (ctypes.c_int64 * count).from_address(sizes)
        hit = next((i for i in range(count) if starts[i] <= self.poisoned < starts[i] + lengths[i]), None)
        if hit is None:
            return self.entry(dsts, srcs, sizes, count, attrs, stream)
        if self.named:
            answer: tuple[int, int | None] = (CUDA_ERROR_INVALID_VALUE, hit)
        else:
            answer = self.entry(dsts, srcs, sizes, count, CUmemcpyAttributes(srcAccessOrder=0), stream)
        self.answers.append(answer)
        return answer


def filled_caches(blocks: int) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """GPU block b of tensor t holds 1000 * t + b + 1 and host block b -(1000 * t + b + 1)."""
    gpu, cpu = make_caches(blocks, blocks)
    for t, name in enumerate(gpu):
        values = torch.arange(blocks, dtype=torch.int32) + 1000 * t + 1
        gpu[name].copy_(values[:, None].expand_as(gpu[name]))
        cpu[name].copy_(-values[:, None].expand_as(cpu[name]))
    torch.cuda.synchronize()
    return gpu, cpu


def landed(
    gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor], is_store: bool, src: list[int], dst: list[int]
) -> bool:
    source, target = (gpu, cpu) if is_store else (cpu, gpu)
    return all(torch.equal(target[name][dst].cpu(), source[name][src].cpu()) for name in gpu)


def drain_errors(backend: OrderedCopyBackend) -> list[BaseException]:
    errors: list[BaseException] = []
    while True:
        try:
            backend.drain()
            return errors
        except Exception as exc:
            errors.append(exc)
            assert len(errors) < 100


def run_group(
    backend: GatedBackend,
    requests: list[tuple[list[int], list[int]]],
    is_store: bool,
    compute_stream: torch.cuda.Stream,
    gpu: dict[str, torch.Tensor],
) -> dict[str, Any]:
    """Launch the requests (stores behind a sleeping writer of their GPU blocks), let the copy
    thread take them as one group, drain, and collect what happened."""
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(compute_stream):
        for idx, (src, dst) in enumerate(requests):
            if is_store:  # the copy must wait for this write, retried or not
                write_blocks(gpu, [b for b in src if b < 64], 100_000 + idx, SLEEP_CYCLES // 8)
            backend.launch_copy(src, dst, is_store, idx, events)
    backend.gate.set()
    errors = drain_errors(backend)
    for _, event in events:
        event.synchronize()
    torch.cuda.synchronize()
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    return {
        "events": events,
        "errors": errors,
        "refused": refused,
        "counters": counters,
        "groups": backend.groups,
    }


def start(backend: OrderedCopyBackend, gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor]) -> None:
    backend.init(gpu, cpu, torch.device("cuda"), low_priority_stream(), low_priority_stream())


@pytest.mark.parametrize("is_store", [True, False])
def test_a_block_out_of_range_refuses_only_its_request(
    is_store: bool, compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    """Issue 25 as reported: policy refuse, a 64-block cache, three requests taken as one
    group, the second with source block 999."""
    gpu, cpu = filled_caches(64)
    backend = GatedBackend(GuardPolicy.REFUSE)
    start(backend, gpu, cpu)
    requests = [([1, 2], [3, 4]), ([1, 999], [3, 4]), ([5], [6])]
    result = run_group(backend, requests, is_store, compute_stream, gpu)
    direction = "store" if is_store else "load"
    errors, refused = result["errors"], result["refused"]
    proof_results.setdefault("fault_isolation", {})[f"out_of_range_{direction}"] = {
        "groups": result["groups"],
        "reported": [idx for idx, _ in result["events"]],
        "refused": [(r.event_idx, r.reason) for r in refused],
        "errors": [str(error) for error in errors],
        "neighbours_landed": landed(gpu, cpu, is_store, [1, 2, 5], [3, 4, 6]),
    }
    assert result["groups"] == [[0, 1, 2]]
    assert [type(error) for error in errors] == [IndexError]
    assert str(errors[0]) == (
        f"kvguard refused {direction} event 1 (source blocks [1, 999] -> destination blocks "
        "[3, 4]): source block 999 is out of range: the source cache has 64 blocks"
    )
    assert [(r.event_idx, r.is_store, r.reason) for r in refused] == [(1, is_store, "copy_error")]
    assert [idx for idx, _ in result["events"]] == [0, 2]
    assert landed(gpu, cpu, is_store, [1, 2, 5], [3, 4, 6])  # the writes, not stale blocks
    assert result["counters"]["refused"] == 1


DRIVER_REQUESTS = [([0, 1], [20, 21]), ([2], [22]), ([5], [25]), ([7, 8], [27, 28]), ([10], [30])]
POISONED = 2  # the request whose copy the driver fails


@pytest.mark.parametrize("is_store", [True, False])
@pytest.mark.parametrize("named", [True, False], ids=["names_the_copy", "names_no_copy"])
def test_a_driver_error_refuses_only_the_request_whose_copy_fails(
    is_store: bool,
    named: bool,
    compute_stream: torch.cuda.Stream,
    proof_results: dict[str, Any],
) -> None:
    gpu, cpu = filled_caches(64)
    backend = GatedBackend(GuardPolicy.RAISE)
    start(backend, gpu, cpu)
    copier: BatchCopier | None = backend._store_copier if is_store else backend._load_copier
    assert copier is not None
    source = gpu if is_store else cpu
    first = next(iter(source.values()))
    block = DRIVER_REQUESTS[POISONED][0][0]
    faulty = FaultyEntry(
        copier._entry, first.data_ptr() + block * first.stride(0) * first.element_size(), named
    )
    copier._entry = faulty
    result = run_group(backend, DRIVER_REQUESTS, is_store, compute_stream, gpu)
    direction = "store" if is_store else "load"
    errors, refused = result["errors"], result["refused"]
    good = [i for i in range(len(DRIVER_REQUESTS)) if i != POISONED]
    src = [b for i in good for b in DRIVER_REQUESTS[i][0]]
    dst = [b for i in good for b in DRIVER_REQUESTS[i][1]]
    key = f"driver_{'named' if named else 'unnamed'}_{direction}"
    proof_results.setdefault("fault_isolation", {})[key] = {
        "groups": result["groups"],
        "reported": [idx for idx, _ in result["events"]],
        "refused": [(r.event_idx, r.reason) for r in refused],
        "errors": [str(error) for error in errors],
        "driver_calls": faulty.calls,
        "failed_calls_code_failidx": faulty.answers,
        "neighbours_landed": landed(gpu, cpu, is_store, src, dst),
        "poisoned_untouched": not landed(gpu, cpu, is_store, *DRIVER_REQUESTS[POISONED]),
    }
    assert result["groups"] == [[0, 1, 2, 3, 4]]
    assert faulty.answers and all(code != 0 for code, _ in faulty.answers)
    # The group's call as one list, again one plan a request; then the other four in one call
    # where the copy was named, or each request alone where none was.
    assert faulty.calls == (3 if named else 7)
    assert [type(error) for error in errors] == [BatchCopyError]
    assert str(errors[0]).startswith(
        f"kvguard refused {direction} event 2 (source blocks [5] -> destination blocks [25]): "
        "cuMemcpyBatchAsync failed with CUDA_ERROR_INVALID_VALUE"
    )
    assert [(r.event_idx, r.reason) for r in refused] == [(POISONED, "copy_error")]
    assert [idx for idx, _ in result["events"]] == good
    assert landed(gpu, cpu, is_store, src, dst)
    assert not landed(gpu, cpu, is_store, *DRIVER_REQUESTS[POISONED])  # never written
