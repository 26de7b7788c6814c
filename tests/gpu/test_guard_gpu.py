"""Proof point 3: the guard catches a missing barrier before the copy, from its own evidence."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from gpu_helpers import (
    SLEEP_CYCLES,
    host_holds,
    low_priority_stream,
    make_caches,
    no_barrier,
    unordered_backend,
    write_blocks,
)

from kvguard.runtime import CopyGuard, CopyRequest, GuardPolicy, GuardViolation, OrderedCopyBackend

TRIALS = 100
ORDERED_STORES = 10_000


def copy_thread_current_stream(
    guard: CopyGuard, transfer_stream: torch.cuda.Stream, request: CopyRequest
) -> None:
    """The classic wrong fix, wait_stream(current_stream()) on the copy thread, made with
    PyTorch: a barrier the guard did not make is no evidence."""
    transfer_stream.wait_stream(torch.cuda.current_stream())


def guard_wait_on_copy_thread_stream(
    guard: CopyGuard, transfer_stream: torch.cuda.Stream, request: CopyRequest
) -> None:
    """The same wrong fix made through the guard: an event of the copy thread's own stream."""
    own = guard.open_request(True, -1, (), ())  # on the copy thread: its stream
    guard.wait(transfer_stream.cuda_stream, own)


class StaleEvent:
    """Waits, through the guard, on the event of one request made long before the writes."""

    stale_request: CopyRequest | None = None

    def __call__(self, guard: CopyGuard, transfer_stream: torch.cuda.Stream, request: CopyRequest) -> None:
        assert self.stale_request is not None
        guard.wait(transfer_stream.cuda_stream, self.stale_request)


# Each wrong barrier under the name its proof figures are kept under (gpu_proofs.json).
WRONG_BARRIERS = {
    "UnorderedBackend": no_barrier,
    "CopyThreadCurrentStreamBackend": copy_thread_current_stream,
    "GuardWaitOnCopyThreadStreamBackend": guard_wait_on_copy_thread_stream,
    "StaleEventBackend": StaleEvent(),
}


def start(
    backend: OrderedCopyBackend, gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor]
) -> OrderedCopyBackend:
    backend.init(gpu, cpu, torch.device("cuda"), low_priority_stream(), low_priority_stream())
    return backend


def racing_store(
    backend: OrderedCopyBackend,
    gpu: dict[str, torch.Tensor],
    compute_stream: torch.cuda.Stream,
    trial: int,
    events: list[tuple[int, Any]],
) -> list[int]:
    slots = [2 * trial, 2 * trial + 1]
    with torch.cuda.stream(compute_stream):
        write_blocks(gpu, [0, 1], trial + 1, SLEEP_CYCLES // 4)
        backend.launch_copy([0, 1], slots, True, trial, events)
    return slots


@pytest.mark.parametrize(
    ("variant", "kind"),
    [
        ("UnorderedBackend", "no_wait"),
        ("CopyThreadCurrentStreamBackend", "no_wait"),
        ("GuardWaitOnCopyThreadStreamBackend", "wait_not_on_compute"),
        ("StaleEventBackend", "stale_record"),
    ],
)
def test_raise_fires_before_the_copy_every_time(
    variant: str,
    kind: str,
    compute_stream: torch.cuda.Stream,
    proof_results: dict[str, Any],
) -> None:
    gpu, cpu = make_caches(2, 2 * TRIALS + 1)
    barrier = WRONG_BARRIERS[variant]
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE, barrier=barrier), gpu, cpu)
    events: list[tuple[int, Any]] = []
    if isinstance(barrier, StaleEvent):
        with torch.cuda.stream(compute_stream):
            barrier.stale_request = backend._guard.open_request(True, -1, (), ())
    raised = untouched = 0
    for trial in range(TRIALS):
        slots = racing_store(backend, gpu, compute_stream, trial, events)
        with pytest.raises(GuardViolation) as caught:
            backend.drain()
        raised += caught.value.kind == kind
        torch.cuda.synchronize()
        untouched += host_holds(cpu, slots, -1)  # the copy never ran
    counters = backend.counters
    backend.shutdown()
    proof_results.setdefault("guard_raise", {})[variant] = {
        "kind": kind,
        "trials": TRIALS,
        "raised": raised,
        "host_untouched": untouched,
        "completion_events": len(events),
        "violations": counters[f"violations_{kind}"],
    }
    assert raised == untouched == counters[f"violations_{kind}"] == TRIALS
    assert events == []


def test_refuse_keeps_unordered_blocks_out_of_the_completed_list(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    gpu, cpu = make_caches(2, 2 * TRIALS)
    backend = start(unordered_backend(GuardPolicy.REFUSE), gpu, cpu)
    events: list[tuple[int, Any]] = []
    for trial in range(TRIALS):
        racing_store(backend, gpu, compute_stream, trial, events)
    backend.drain()
    torch.cuda.synchronize()
    refused = backend.refused_copies()
    counters = backend.counters
    backend.shutdown()
    untouched = sum(host_holds(cpu, [2 * t, 2 * t + 1], -1) for t in range(TRIALS))
    proof_results["guard_refuse"] = {
        "trials": TRIALS,
        "completion_events": len(events),
        "refused": len(refused),
        "host_untouched": untouched,
        "counter_refused": counters["refused"],
    }
    assert events == []
    assert [copy.event_idx for copy in refused] == list(range(TRIALS))
    assert {copy.reason for copy in refused} == {"no_wait"}
    assert counters["refused"] == untouched == TRIALS


def test_no_violation_over_ten_thousand_ordered_stores(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    gpu, cpu = make_caches(64, 64)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    events: list[tuple[int, Any]] = []
    with torch.cuda.stream(compute_stream):
        for store in range(ORDERED_STORES):
            blocks = [store % 64]
            if store % 100 == 0:
                write_blocks(gpu, blocks, store, 0)
            backend.launch_copy(blocks, blocks, True, store, events)
    backend.drain()
    torch.cuda.synchronize()
    counters = backend.counters
    backend.shutdown()
    violations = sum(v for k, v in counters.items() if k.startswith("violations_"))
    proof_results["guard_ordered"] = {
        "stores": ORDERED_STORES,
        "stores_checked": counters["stores_checked"],
        "violations": violations,
        "completion_events": len(events),
    }
    assert violations == 0
    assert counters["stores_checked"] == len(events) == ORDERED_STORES
