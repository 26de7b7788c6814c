"""Proof points 1, 2 and 4: the race is real, the ordered backend closes it, for loads too."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import torch
from gpu_helpers import (
    SLEEP_CYCLES,
    host_holds,
    low_priority_stream,
    make_caches,
    unordered_backend,
    write_blocks,
)

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend
from kvguard.vllm.worker import GuardedBackendBridge

TRIALS = 50
ORDERED_STORES = 1000
SHORT_SLEEP = 2_000_000  # ~2 ms: still far longer than the copy thread's launch latency


def start(
    backend: OrderedCopyBackend, gpu: dict[str, torch.Tensor], cpu: dict[str, torch.Tensor]
) -> OrderedCopyBackend:
    backend.init(gpu, cpu, torch.device("cuda"), low_priority_stream(), low_priority_stream())
    return backend


def test_store_without_barrier_reads_stale_data_from_main_thread(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    gpu, cpu = make_caches(4, 4 * TRIALS)
    copier = BatchCopier(gpu, cpu, low_priority_stream())
    stale = 0
    for trial in range(TRIALS):
        slots = [4 * trial + i for i in range(4)]
        with torch.cuda.stream(compute_stream):
            write_blocks(gpu, [0, 1, 2, 3], trial + 1, SLEEP_CYCLES)
        copier.copy([0, 1, 2, 3], slots)  # no barrier: the bug
        torch.cuda.synchronize()
        stale += not host_holds(cpu, slots, trial + 1)
    proof_results["race_main_thread"] = {"stale": stale, "trials": TRIALS}
    assert stale >= 0.95 * TRIALS


def test_store_without_barrier_reads_stale_data_from_copy_thread(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    gpu, cpu = make_caches(4, 4 * TRIALS)
    backend = start(unordered_backend(GuardPolicy.WARN), gpu, cpu)
    events: list[tuple[int, Any]] = []
    stale = 0
    for trial in range(TRIALS):
        slots = [4 * trial + i for i in range(4)]
        with torch.cuda.stream(compute_stream):
            write_blocks(gpu, [0, 1, 2, 3], trial + 1, SLEEP_CYCLES)
            backend.launch_copy([0, 1, 2, 3], slots, True, trial, events)
        backend.drain()
        torch.cuda.synchronize()
        stale += not host_holds(cpu, slots, trial + 1)
    backend.shutdown()
    proof_results["race_copy_thread"] = {"stale": stale, "trials": TRIALS}
    assert stale >= 0.95 * TRIALS


def run_ordered_stores(compute_stream: torch.cuda.Stream, pass_wait_event: bool) -> dict[str, int]:
    """Stores as vLLM's worker issues them: each right after the step that wrote its blocks."""
    gpu, cpu = make_caches(2 * ORDERED_STORES, 2 * ORDERED_STORES)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    events: list[tuple[int, Any]] = []
    compute_done = torch.Event(device="cuda")  # reused across steps, as the worker does
    with torch.cuda.stream(compute_stream):
        for store in range(ORDERED_STORES):
            blocks = [2 * store, 2 * store + 1]
            write_blocks(gpu, blocks, store + 1, SHORT_SLEEP)
            wait_event = None
            if pass_wait_event:
                compute_done.record(torch.cuda.current_stream())
                wait_event = compute_done
            backend.launch_copy(blocks, blocks, True, store, events, wait_event)
    backend.drain()
    for _, event in events:
        event.synchronize()
    stale = sum(not host_holds(cpu, [2 * store, 2 * store + 1], store + 1) for store in range(ORDERED_STORES))
    in_order = [idx for idx, _ in events] == list(range(ORDERED_STORES))
    counters = backend.counters
    backend.shutdown()
    return {
        "stores": ORDERED_STORES,
        "stale": stale,
        "events_in_fifo_order": int(in_order),
        "violations": sum(v for k, v in counters.items() if k.startswith("violations_")),
    }


def test_ordered_backend_never_stores_stale_blocks(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    older = run_ordered_stores(compute_stream, pass_wait_event=False)
    newer = run_ordered_stores(compute_stream, pass_wait_event=True)
    proof_results["ordered_stores"] = {"backend_records_event": older, "caller_event": newer}
    for result in (older, newer):
        assert result["stale"] == 0
        assert result["events_in_fifo_order"] == 1
        assert result["violations"] == 0


def test_a_burst_planned_on_the_requesting_thread_stores_every_block(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stores of 64 small blocks launched back to back while a sleep-gated writer has yet to
    write them: launch_copy plans the requests that find others queued, the copy thread joins
    the plans, and every block lands with the value written before its store was requested."""
    stores, size = 32, 64
    gpu, cpu = make_caches(stores * size, stores * size)  # 4 KiB blocks: planned early
    planned_here = []  # the requests launch_copy planned itself, on this thread
    plan = BatchCopier.plan

    def counting_plan(copier: BatchCopier, src: Any, dst: Any) -> Any:
        if threading.current_thread() is threading.main_thread():
            planned_here.append(len(src))
        return plan(copier, src, dst)

    monkeypatch.setattr(BatchCopier, "plan", counting_plan)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    blocks = [list(range(store * size, (store + 1) * size)) for store in range(stores)]
    indexes = [torch.tensor(ids, device="cuda") for ids in blocks]
    events: list[tuple[int, Any]] = []
    torch.cuda.synchronize()
    with torch.cuda.stream(compute_stream):
        torch.cuda._sleep(SLEEP_CYCLES)
        for store, index in enumerate(indexes):
            for tensor in gpu.values():
                tensor.index_fill_(0, index, store + 1)
        for store, ids in enumerate(blocks):
            backend.launch_copy(ids, ids[::-1], True, store, events)
    backend.drain()
    torch.cuda.synchronize()
    stale = sum(not host_holds(cpu, ids, store + 1) for store, ids in enumerate(blocks))
    result = {
        "stores": stores,
        "stale": stale,
        "planned_early": len(planned_here),
        "events_in_fifo_order": int([i for i, _ in events] == list(range(stores))),
    }
    backend.shutdown()
    proof_results["early_planned_burst"] = result
    assert result["stale"] == 0 and result["events_in_fifo_order"] == 1
    assert result["planned_early"] >= stores // 2


def read_during_load(
    compute_stream: torch.cuda.Stream,
    issue_load: Any,
    gpu: dict[str, torch.Tensor],
    cpu: dict[str, torch.Tensor],
) -> int:
    """Trials in which a load overwrote block 0 before the compute stream's reader read it."""
    snapshots = torch.zeros(TRIALS, gpu["k"].shape[1], dtype=torch.int32, device="cuda")
    overwritten = 0
    for trial in range(TRIALS):
        gpu["k"][0].fill_(trial)  # what the reader should see
        cpu["k"][0].fill_(10_000 + trial)  # what the load brings in
        torch.cuda.synchronize()
        with torch.cuda.stream(compute_stream):
            torch.cuda._sleep(SLEEP_CYCLES)
            snapshots[trial].copy_(gpu["k"][0])  # the sleep-gated reader
            issue_load(trial)
        torch.cuda.synchronize()
        overwritten += bool((snapshots[trial] == 10_000 + trial).any())
    return overwritten


def test_unordered_load_overwrites_a_block_the_reader_still_needs(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    gpu, cpu = make_caches(1, 1)
    copier = BatchCopier(cpu, gpu, low_priority_stream())
    overwritten = read_during_load(compute_stream, lambda trial: copier.copy([0], [0]), gpu, cpu)
    proof_results["load_unordered"] = {"overwritten": overwritten, "trials": TRIALS}
    assert overwritten >= 0.95 * TRIALS


def test_ordered_load_waits_for_the_reader(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    gpu, cpu = make_caches(1, 1)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    events: list[tuple[int, Any]] = []

    def load(trial: int) -> None:
        backend.launch_copy([0], [0], False, trial, events)
        backend.drain()

    overwritten = read_during_load(compute_stream, load, gpu, cpu)
    counters = backend.counters
    backend.shutdown()
    proof_results["load_ordered"] = {
        "overwritten": overwritten,
        "trials": TRIALS,
        "loads_checked": counters["loads_checked"],
    }
    assert overwritten == 0
    assert counters["loads_checked"] == TRIALS
    assert len(events) == TRIALS


def test_reused_completion_events_wait_for_their_own_copy(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    """A completion event the caller dropped is recorded again for a later store (by the
    driver); waiting on it must wait for that store, not return on its old record."""
    stores = 200
    gpu, cpu = make_caches(2, 2 * stores)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    events: list[tuple[int, Any]] = []
    stale = 0
    seen = set()
    with torch.cuda.stream(compute_stream):
        for store in range(stores):
            slots = [2 * store, 2 * store + 1]
            write_blocks(gpu, [0, 1], store + 1, SHORT_SLEEP)
            backend.launch_copy([0, 1], slots, True, store, events)
            while not events:
                time.sleep(0)  # reported once issued, long before the sleep-gated copy ran
            idx, event = events.pop()
            seen.add(id(event))
            event.synchronize()
            stale += idx != store or not host_holds(cpu, slots, store + 1)
            del event  # as vLLM's worker: the backend may now reuse it
    created = backend.completion_events_created
    driver_recorded = backend._issuer.completions.raw_record is not None  # type: ignore[union-attr]
    backend.shutdown()
    proof_results["completion_event_reuse"] = {
        "stores": stores,
        "stale": stale,
        "events_created": created,
        "distinct_events_seen": len(seen),
        "driver_record_in_use": driver_recorded,
    }
    assert stale == 0
    assert created <= 3


def test_stores_requested_from_a_thread_new_to_cuda_are_ordered(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    """A requesting thread whose only CUDA use is entering the compute stream: the guard binds
    it to the stream's context before recording its event there."""
    trials = 10
    gpu, cpu = make_caches(2, 2 * trials)
    backend = start(OrderedCopyBackend(GuardPolicy.RAISE), gpu, cpu)
    events: list[tuple[int, Any]] = []
    failures: list[BaseException] = []
    stale = 0
    for trial in range(trials):
        slots = [2 * trial, 2 * trial + 1]
        with torch.cuda.stream(compute_stream):
            write_blocks(gpu, [0, 1], trial + 1, SHORT_SLEEP)

        def request(slots: list[int] = slots, trial: int = trial) -> None:
            try:
                with torch.cuda.stream(compute_stream):
                    backend.launch_copy([0, 1], slots, True, trial, events)
            except BaseException as exc:  # reported below, with the trial's figures
                failures.append(exc)

        thread = threading.Thread(target=request)
        thread.start()
        thread.join()
        backend.drain()
        torch.cuda.synchronize()
        stale += not host_holds(cpu, slots, trial + 1)
    counters = backend.counters
    backend.shutdown()
    proof_results["fresh_thread_stores"] = {
        "trials": trials,
        "stale": stale,
        "errors": [repr(e) for e in failures],
        "stores_checked": counters["stores_checked"],
    }
    assert failures == [] and stale == 0 and len(events) == trials


def test_stores_through_the_vllm_bridge_are_ordered_by_the_guards_event_alone(
    compute_stream: torch.cuda.Stream, proof_results: dict[str, Any]
) -> None:
    """The vLLM adapter's bridge passes no event of its own (nor the stock worker's) with a
    copy: the guard's event, recorded on the requesting thread's compute stream, orders each
    store behind a sleep-gated writer."""
    gpu, cpu = make_caches(4, 4 * TRIALS)
    bridge = GuardedBackendBridge(OrderedCopyBackend(GuardPolicy.RAISE))
    bridge.init(gpu, cpu, torch.device("cuda"), low_priority_stream(), low_priority_stream())
    stock_events: list[tuple[int, Any]] = []
    stale = 0
    for trial in range(TRIALS):
        slots = [4 * trial + i for i in range(4)]
        with torch.cuda.stream(compute_stream):
            write_blocks(gpu, [0, 1, 2, 3], trial + 1, SLEEP_CYCLES)
            bridge.launch_copy([0, 1, 2, 3], slots, True, trial, stock_events, wait_event=None)
        bridge.drain()
        bridge.settle()
        idx, event = stock_events.pop()
        event.synchronize()
        stale += idx != trial or not host_holds(cpu, slots, trial + 1)
    counters = bridge.backend.counters
    bridge.shutdown()
    proof_results["bridge_stores"] = {
        "stale": stale,
        "trials": TRIALS,
        "violations": counters["violations_no_wait"],
    }
    assert stale == 0 and counters["violations_no_wait"] == 0
