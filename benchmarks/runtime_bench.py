"""Store bandwidth of kvguard's ordered, guarded backend against a raw batch copy and against the
stock connector's shape, on a GPU.

Writes bench.json and bench.png to --out. Run by benchmarks/runtime_gpu_suite.py.

The sweep runs in one fresh process. Each repeat times every variant once, each window between
two raw windows of its own (raw, A, raw, raw, B, raw, raw, C, raw; the order of A, B and C
rotates from repeat to repeat), and a variant's ratio to raw is the median over repeats of its
window against the mean of the two raw windows around it. Windows are short (about 1 GiB) and
bracketed because the copy engine's speed on small descriptors switches between two states
that last hundreds of milliseconds (`copy_state` measures it per store): a paired ratio
compares two windows run in the same state, where a ratio of medians over long windows
compares whichever states each variant happened to get. A pair whose raw windows differ by
more than STEADY_BRACKET caught a switch inside the bracket; `*_ratio_steady` is the median
over the other pairs (every pair is in bench.json). Rows with small blocks get more repeats.
The machine's CPUs differ in speed, so the sweep times a Python loop on each, then runs raw's
loop and every backend's copy thread on the steadiest fast CPU, and the requesting thread
(during a backend's window) and the verify thread on the next: the host-bound copy work runs
on the same CPU in every variant.
- raw: `BatchCopier.copy` in a loop on one thread, no barrier, no guard (the planner and driver
  call the backend uses).
- stock-shaped: the handoff of vLLM's stock DmaCopyBackend: `launch_copy` queues, one
  background thread takes each request in turn and issues one batch copy for it
  (srcAccessOrder STREAM) and records a fresh completion event; no barrier, no guard.
- ordered = `OrderedCopyBackend(policy="raise")`, every store requested from a compute stream
  and launched back to back, as a worker does when stores pile up (throughput, many in
  flight); verified = ordered with 1% sampled verification.
Each variant also has a single-store latency: one store at a time, each waited for before the
next (raw: copy and stream synchronize; a backend: launch_copy, wait for its completion event
to be reported, synchronize it, drop it as vLLM's worker does).

Guard host overhead is measured end to end: the host CPU time per store of the guarded backend
minus that of the same backend, barrier included, with the guard's evidence log discarded and
its checks skipped, each in a fresh process, plus a breakdown of where the difference goes.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import queue
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from kvguard.runtime import (
    BatchCopier,
    CopyGuard,
    CopyRequest,
    GroupLimits,
    GuardPolicy,
    OrderedCopyBackend,
    StreamEventLog,
)
from kvguard.runtime.order import MemoryKind, SourceOrder

BLOCK_SIZES = [16 << 10, 64 << 10, 256 << 10, 1 << 20, 2 << 20]
BATCHES = [1, 16, 128, 1024]
HOST_BLOCKS = 1024
REPEATS = 15
# Rows whose raw speed swings between copy-engine states (blocks of 64 KiB and less, 16 or more
# a store) get more repeats, so that enough of their brackets are steady (below).
SWINGING_REPEATS = 30
# A pair whose two raw windows differ by more than this caught raw changing state within the
# bracket: it says nothing about the variant. `*_ratio_steady` is the median over the others.
STEADY_BRACKET = 0.05
MIN_STEADY_PAIRS = 5  # fewer steady pairs than this: the row has no steady figure
WINDOW_BYTES = 1 << 30  # bytes stored per timed window, within the store count limits below
MAX_STORES = 1000
MIN_STORES = 2
VARIANTS = ("stock", "ordered", "verified")
CPU_STORES = 20_000  # guard overhead workload: 16 KiB single-block stores (host-bound)
GUARD_PAIRS = 3

QUICK = False

Batches = list[tuple[list[int], list[int]]]


def use_quick_settings() -> None:
    """--quick: tiny sizes, to check the script end to end in seconds (not for figures)."""
    global BLOCK_SIZES, BATCHES, HOST_BLOCKS, REPEATS, WINDOW_BYTES, MAX_STORES, CPU_STORES, QUICK
    global SWINGING_REPEATS
    global GUARD_PAIRS
    QUICK, GUARD_PAIRS = True, 1
    BLOCK_SIZES, BATCHES, HOST_BLOCKS = [16 << 10, 64 << 10], [1, 16], 64
    REPEATS, WINDOW_BYTES, MAX_STORES, CPU_STORES = 3, 1 << 20, 40, 400
    SWINGING_REPEATS = 3


def reps_for(store_bytes: int) -> int:
    return max(MIN_STORES, min(MAX_STORES, WINDOW_BYTES // store_bytes))


def latency_reps_for(store_bytes: int) -> int:
    return max(10, min(200, (256 << 20) // store_bytes))


class DiscardingLog(StreamEventLog):
    """An evidence log that keeps nothing: the handshake's driver calls without the guard."""

    def on_record(self, event_id: int, stream: int) -> None:
        pass

    def on_wait(self, event_id: int, stream: int) -> None:
        pass


class UnguardedGuard(CopyGuard):
    """The guard's handshake (its record and wait) with the evidence discarded and no check: the
    same backend, barrier and all, without the guard's own work (the overhead baseline)."""

    def __init__(self, policy: GuardPolicy) -> None:
        super().__init__(policy, event_log=DiscardingLog())

    def all_ordered(
        self,
        requests: Sequence[CopyRequest],
        transfer_stream: int,
        source_kind: MemoryKind,
        source_order: SourceOrder,
    ) -> bool:
        return True


class GroupCounter:
    """Counts the copy thread's groups (passed as `on_group` to the guarded and unguarded
    backends alike, so the count costs both the same)."""

    def __init__(self) -> None:
        self.groups = 0

    def __call__(self, requests: list[CopyRequest]) -> None:
        self.groups += 1


class TimedGuard(CopyGuard):
    """Records the copy thread's CPU time in the guard's checks, the requests and the groups."""

    def __init__(self, policy: GuardPolicy) -> None:
        super().__init__(policy)
        self.check_seconds = 0.0
        self.checked = 0
        self.groups = 0

    def all_ordered(
        self,
        requests: Sequence[CopyRequest],
        transfer_stream: int,
        source_kind: MemoryKind,
        source_order: SourceOrder,
    ) -> bool:
        start = time.thread_time()  # CPU time of this thread: wall time would count GIL waits
        ordered = super().all_ordered(requests, transfer_stream, source_kind, source_order)
        self.check_seconds += time.thread_time() - start
        self.checked += len(requests)
        self.groups += 1
        return ordered


class StockShapedBackend:
    """The copy handoff of vLLM's stock DmaCopyBackend, on kvguard's BatchCopier (a baseline).

    `launch_copy` queues the request; one thread takes each in turn, issues one batch copy for
    it and records a fresh completion event on the transfer stream. No barrier, no guard: the
    shape whose race kvguard fixes, measured only for its cost.
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def init(
        self,
        gpu_caches: dict[str, torch.Tensor],
        cpu_caches: dict[str, torch.Tensor],
        device: torch.device,
        load_stream: torch.cuda.Stream,
        store_stream: torch.cuda.Stream,
    ) -> None:
        self._store = BatchCopier(gpu_caches, cpu_caches, store_stream)
        self._load = BatchCopier(cpu_caches, gpu_caches, load_stream)
        self._device = device
        self._thread = threading.Thread(target=self._copy_loop, daemon=True)
        self._thread.start()

    def launch_copy(
        self,
        src_blocks: Sequence[int],
        dst_blocks: Sequence[int],
        is_store: bool,
        event_idx: int,
        events_list: list[tuple[int, Any]],
        wait_event: Any = None,
    ) -> None:
        self._queue.put((src_blocks, dst_blocks, is_store, event_idx, events_list))

    def drain(self) -> None:
        marker = threading.Event()
        self._queue.put(marker)
        while not marker.wait(1.0):
            assert self._thread is not None and self._thread.is_alive(), "stock copy thread died"

    def shutdown(self) -> None:
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(10)

    def _copy_loop(self) -> None:
        torch.cuda.set_device(self._device)
        while (item := self._queue.get()) is not None:
            if isinstance(item, threading.Event):
                item.set()
                continue
            src_blocks, dst_blocks, is_store, event_idx, events_list = item
            copier = self._store if is_store else self._load
            # The stock shape: no wait on the compute stream (the race), measured as a baseline.
            copier.copy(src_blocks, dst_blocks)
            event = torch.cuda.Event()
            event.record(copier.stream)
            events_list.append((event_idx, event))


def time_raw(copier: BatchCopier, batches: Batches) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for src, dst in batches:
        copier.copy(src, dst)
    copier.stream.synchronize()
    return time.perf_counter() - start


def cpu_speeds(rounds: int = 3) -> dict[int, list[float]]:
    """Seconds a fixed Python loop takes on each CPU this process may use, one figure a round.

    The device machine's vCPUs differ: the same loop took 16 ms on some and 24 to 28 ms on
    others, and some changed between rounds (docs/decisions.md, "How the benchmark measures").
    On host-bound rows a ratio then measures two CPUs' speeds, unless the thread doing the
    host-bound copy work runs on the same CPU in raw's windows and in the backends'.
    """
    allowed = sorted(os.sched_getaffinity(0))
    speeds: dict[int, list[float]] = {cpu: [] for cpu in allowed}
    for _ in range(rounds):
        for cpu in allowed:
            os.sched_setaffinity(0, {cpu})
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                total = 0
                for i in range(200_000):
                    total += i * i
                best = min(best, time.perf_counter() - start)
            speeds[cpu].append(best)
    os.sched_setaffinity(0, allowed)
    return speeds


def pin(native_id: int, cpu: int) -> None:
    """Run one thread (0: the calling one) on one CPU only."""
    os.sched_setaffinity(native_id, {cpu})


def pin_backend_threads(backend: Any, copy_cpu: int, other_cpu: int) -> None:
    """The backend's copy thread on `copy_cpu` (where raw's loop runs), any other on
    `other_cpu` (where the requesting thread runs during the backend's windows)."""
    threads = getattr(backend, "_threads", None) or [backend._thread]
    for thread in threads:
        pin(thread.native_id, copy_cpu if thread.name != "kvguard-verify" else other_cpu)


def time_backend(backend: Any, compute: torch.cuda.Stream, batches: Batches) -> float:
    events: list[tuple[int, Any]] = []
    torch.cuda.synchronize()
    start = time.perf_counter()
    with torch.cuda.stream(compute):
        for idx, (src, dst) in enumerate(batches):
            backend.launch_copy(src, dst, True, idx, events)
    backend.drain()
    events[-1][1].synchronize()
    elapsed = time.perf_counter() - start
    assert [idx for idx, _ in events] == list(range(len(batches)))
    return elapsed


def latency_raw(copier: BatchCopier, batches: Batches) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for src, dst in batches:
        copier.copy(src, dst)
        copier.stream.synchronize()
    return (time.perf_counter() - start) / len(batches)


def latency_backend(backend: Any, compute: torch.cuda.Stream, batches: Batches) -> float:
    events: list[tuple[int, Any]] = []
    torch.cuda.synchronize()
    start = time.perf_counter()
    with torch.cuda.stream(compute):
        for idx, (src, dst) in enumerate(batches):
            backend.launch_copy(src, dst, True, idx, events)
            while not events:
                time.sleep(0)  # yields the GIL to the copy thread
            events[0][1].synchronize()
            events.clear()  # as vLLM's worker drops a completed event
    return (time.perf_counter() - start) / len(batches)


def cpu_child(mode: str) -> dict[str, float]:
    """Host CPU per store (all threads) of the guarded or unguarded backend, this process."""
    device = torch.device("cuda", 0)
    gpu = {"kv": torch.zeros(2048, 4096, dtype=torch.int32, device=device)}
    cpu = {"kv": torch.zeros(1024, 4096, dtype=torch.int32).pin_memory()}
    low, _ = torch.cuda.Stream.priority_range()
    counter = GroupCounter()
    guard = UnguardedGuard(GuardPolicy.RAISE) if mode == "unguarded" else None
    backend = OrderedCopyBackend(GuardPolicy.RAISE, guard=guard, on_group=counter)
    backend.init(gpu, cpu, device, torch.cuda.Stream(priority=low), torch.cuda.Stream(priority=low))
    compute = torch.cuda.Stream()
    rng = random.Random(1)
    ids = [(rng.randrange(2048), rng.randrange(1024)) for _ in range(CPU_STORES)]
    result = {}
    for name, chunk in (("pipelined", 1000), ("one_at_a_time", 1)):
        stores = CPU_STORES if chunk > 1 else CPU_STORES // 10
        for warm in (True, False):
            events: list[tuple[int, Any]] = []
            torch.cuda.synchronize()
            groups_before = counter.groups
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            with torch.cuda.stream(compute):
                for i in range(200 if warm else stores):
                    src, dst = ids[i]
                    backend.launch_copy([src], [dst], True, i, events)
                    if (i + 1) % chunk == 0:
                        backend.drain()  # sleeps on a threading.Event: no CPU while waiting
                        events.clear()  # reported; a worker drops them once complete
            backend.drain()
            cpu_us = (time.process_time() - cpu_start) / stores * 1e6
            wall_us = (time.perf_counter() - wall_start) / stores * 1e6
            torch.cuda.synchronize()
        result[f"{name}_cpu_us"] = cpu_us
        result[f"{name}_wall_us"] = wall_us
        result[f"{name}_mean_group"] = stores / max(1, counter.groups - groups_before)
    result["completion_events_created"] = backend.completion_events_created
    backend.shutdown()
    return result


def run_child(out: Path, *args: str) -> dict[str, Any]:
    """Run this script in a fresh process; its progress goes to our stdout, its result to a file."""
    quick = ["--quick"] if QUICK else []
    with tempfile.TemporaryDirectory() as scratch:
        result_path = Path(scratch) / "result.json"
        subprocess.run(
            [sys.executable, __file__, "--out", str(out), "--result", str(result_path), *quick, *args],
            check=True,
        )
        loaded: dict[str, Any] = json.loads(result_path.read_text())
        return loaded


def guard_overhead(out: Path) -> dict[str, Any]:
    """GUARD_PAIRS unguarded/guarded pairs of fresh processes, alternating; the overhead per
    store is the median of the pairs' differences (each child's figure is itself noisy: a
    store one at a time costs two thread wake-ups). Every child runs on the same two CPUs, the
    steadiest fast ones (children inherit this process's affinity), since the machine's CPUs
    differ in speed (cpu_speeds)."""
    allowed = os.sched_getaffinity(0)
    speeds = cpu_speeds(rounds=2)
    cpus = sorted(speeds, key=lambda cpu: max(speeds[cpu]))[:2]
    os.sched_setaffinity(0, cpus)
    try:
        pairs = [
            {mode: run_child(out, "--cpu-child", mode) for mode in ("unguarded", "guarded")}
            for _ in range(GUARD_PAIRS)
        ]
    finally:
        os.sched_setaffinity(0, allowed)
    result: dict[str, Any] = {"children": pairs, "children_cpus": cpus}
    for workload in ("pipelined", "one_at_a_time"):
        differences = [
            pair["guarded"][f"{workload}_cpu_us"] - pair["unguarded"][f"{workload}_cpu_us"] for pair in pairs
        ]
        result[f"end_to_end_us_per_store_{workload}_pairs"] = differences
        result[f"end_to_end_us_per_store_{workload}"] = statistics.median(differences)
    return result


def handshake_components(requests: int = 20_000) -> dict[str, float]:
    """Host microseconds of the guard's handshake per request, with its evidence logged (the
    guard) and discarded (the barrier alone): open_request on the requesting thread, the
    transfer stream's wait and the release on the copy thread (here one thread, one stream
    each); and the guard's check of one request on its own (a group of one)."""
    compute, transfer = torch.cuda.Stream(), torch.cuda.Stream()
    result = {}
    for name, log in (("logged", None), ("discarded", DiscardingLog())):
        guard = CopyGuard(GuardPolicy.RAISE, event_log=log)
        guard.attach(torch.cuda.current_device())
        with torch.cuda.stream(compute):  # the stream open_request reads as the compute stream
            for warm in (True, False):
                opened = waited = checked = 0.0
                for i in range(200 if warm else requests):
                    start = time.perf_counter()
                    request = guard.open_request(True, i, (1,), (2,))
                    middle = time.perf_counter()
                    guard.wait(transfer.cuda_stream, request)
                    guard.release(request)
                    end = time.perf_counter()
                    if log is None:
                        assert guard.all_ordered(
                            [request], transfer.cuda_stream, MemoryKind.DEVICE, SourceOrder.STREAM
                        )
                        checked += time.perf_counter() - end
                    opened += middle - start
                    waited += end - middle
        torch.cuda.synchronize()
        guard.close()
        result[f"open_request_us_{name}"] = opened / requests * 1e6
        result[f"wait_release_us_{name}"] = waited / requests * 1e6
        if log is None:
            result["check_us_single"] = checked / requests * 1e6
    return result


def copy_state(windows: int = 8, stores: int = 64) -> dict[str, Any]:
    """Raw 16 KiB x 1024 stores, each timed on the GPU with events: per-window bandwidth and the
    spread of per-store device time, which shows the copy engine's two speeds on small
    descriptors and how long each lasts (consecutive stores share one)."""
    block, batch = 16 << 10, 1024
    gpu = torch.zeros(2 * HOST_BLOCKS, block, dtype=torch.uint8, device="cuda")
    cpu = torch.empty(HOST_BLOCKS, block, dtype=torch.uint8).pin_memory()
    low, _ = torch.cuda.Stream.priority_range()
    copier = BatchCopier({"kv": gpu}, {"kv": cpu}, torch.cuda.Stream(priority=low))
    batches = batches_for(block, min(batch, HOST_BLOCKS), stores)
    per_store_us: list[list[float]] = []
    window_gbps = []
    for _ in range(windows):
        marks = [torch.cuda.Event(enable_timing=True) for _ in range(len(batches) + 1)]
        torch.cuda.synchronize()
        start = time.perf_counter()
        marks[0].record(copier.stream)
        for (src, dst), mark in zip(batches, marks[1:], strict=True):
            copier.copy(src, dst)
            mark.record(copier.stream)
        copier.stream.synchronize()
        window_gbps.append(block * len(batches[0][0]) * len(batches) / (time.perf_counter() - start) / 1e9)
        per_store_us.append([a.elapsed_time(b) * 1e3 for a, b in itertools.pairwise(marks)])
    flat = sorted(t for window in per_store_us for t in window)
    fast = flat[len(flat) // 10]
    slow = [[t > 1.5 * fast for t in window] for window in per_store_us]
    switches = sum(a != b for window in slow for a, b in itertools.pairwise(window))
    return {
        "block_bytes": block,
        "batch_blocks": len(batches[0][0]),
        "stores_per_window": stores,
        "window_gbps": window_gbps,
        "store_us_p10_p50_p90": [flat[len(flat) // 10], flat[len(flat) // 2], flat[9 * len(flat) // 10]],
        "slow_store_fraction_per_window": [sum(w) / len(w) for w in slow],
        "state_switches_between_consecutive_stores": switches,
        "consecutive_pairs": sum(len(w) - 1 for w in slow),
    }


def batches_for(block: int, batch: int, stores: int | None = None) -> Batches:
    """Random block ids, the same in every run."""
    rng = random.Random(block * 10_000 + batch)
    count = reps_for(block * batch) if stores is None else stores
    return [
        (rng.sample(range(2 * HOST_BLOCKS), batch), rng.sample(range(HOST_BLOCKS), batch))
        for _ in range(count)
    ]


def steady_ratios(raw: list[float], ratios: list[float]) -> list[float]:
    """The paired ratios whose two raw windows agree within STEADY_BRACKET."""
    return [
        ratio
        for before, after, ratio in zip(raw[0::2], raw[1::2], ratios, strict=True)
        if abs(after / before - 1.0) <= STEADY_BRACKET
    ]


def paired_ratios(raw: list[float], variant: list[float]) -> list[float]:
    """Per repeat: the mean of the two raw windows around the variant's, over the variant's
    (a bandwidth ratio: the bytes are the same)."""
    return [
        (before + after) / 2 / seconds
        for before, after, seconds in zip(raw[0::2], raw[1::2], variant, strict=True)
    ]


def sweep() -> dict[str, Any]:
    """Every configuration; within each repeat every variant once, bracketed by raw windows."""
    speeds = cpu_speeds()
    ranked = sorted(speeds, key=lambda cpu: max(speeds[cpu]))
    # raw's loop and every backend's copy thread on the steadiest fast CPU; the requesting
    # thread, during a backend's window, and the verify thread on the next one.
    copy_cpu, request_cpu = ranked[0], ranked[1 % len(ranked)]
    pin(0, copy_cpu)
    extra: dict[str, Any] = {
        "cpu_loop_seconds": {str(k): v for k, v in speeds.items()},
        "copy_cpu": copy_cpu,
        "request_cpu": request_cpu,
    }
    extra.update(handshake_components())
    extra["copy_state"] = copy_state()
    device = torch.device("cuda", 0)
    max_block = max(BLOCK_SIZES)
    # Random bytes, periodic every 16 KiB, so every block of every size holds the same data:
    # stores here reuse host blocks (random destinations), and a later store may overwrite a
    # host block while an earlier one's sample is verified; with equal blocks that reads the
    # same bytes. (vLLM never reuses a host block before its store is reported.)
    pattern = torch.randint(0, 256, (min(BLOCK_SIZES),), dtype=torch.uint8, device=device)
    gpu_bytes = pattern.repeat(2 * HOST_BLOCKS * max_block // min(BLOCK_SIZES))
    host_bytes = torch.empty(HOST_BLOCKS * max_block, dtype=torch.uint8).pin_memory()
    compute = torch.cuda.Stream()
    low, _ = torch.cuda.Stream.priority_range()
    rows: list[dict[str, Any]] = []
    timed = {"seconds": 0.0, "checked": 0, "groups": 0}
    for block in BLOCK_SIZES:
        gpu = {"kv": gpu_bytes[: 2 * HOST_BLOCKS * block].view(2 * HOST_BLOCKS, block)}
        cpu = {"kv": host_bytes[: HOST_BLOCKS * block].view(HOST_BLOCKS, block)}
        raw = BatchCopier(gpu, cpu, torch.cuda.Stream(priority=low))
        timed_guard = TimedGuard(GuardPolicy.RAISE)
        ordered = OrderedCopyBackend(GuardPolicy.RAISE, guard=timed_guard)
        verified = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.01, verify_seed=0)
        backends: dict[str, Any] = {"stock": StockShapedBackend(), "ordered": ordered, "verified": verified}
        for backend in backends.values():
            backend.init(gpu, cpu, device, torch.cuda.Stream(priority=low), torch.cuda.Stream(priority=low))
            pin_backend_threads(backend, copy_cpu, request_cpu)

        def on_backend(run: Any, *args: Any) -> Any:
            """Run a backend's window with this (the requesting) thread on request_cpu."""
            pin(0, request_cpu)
            try:
                return run(*args)
            finally:
                pin(0, copy_cpu)

        for batch in BATCHES:
            batches = batches_for(block, batch)
            time_raw(raw, batches[:3])  # warm-up
            for backend in backends.values():
                on_backend(time_backend, backend, compute, batches[:3])
            check_before = (timed_guard.check_seconds, timed_guard.checked, timed_guard.groups)
            verified_before = verified.counters["verified"]
            stats_before = dict(verified.verify_stats)
            seconds: dict[str, list[float]] = {"raw": [], **{name: [] for name in VARIANTS}}
            brackets: dict[str, list[float]] = {name: [] for name in VARIANTS}  # (before, after)
            swinging = block <= 64 << 10 and batch >= 16
            for repeat in range(SWINGING_REPEATS if swinging else REPEATS):
                turn = repeat % len(VARIANTS)
                for name in VARIANTS[turn:] + VARIANTS[:turn]:
                    before = time_raw(raw, batches)
                    seconds[name].append(on_backend(time_backend, backends[name], compute, batches))
                    after = time_raw(raw, batches)
                    seconds["raw"] += [before, after]
                    brackets[name] += [before, after]
            ratios = {name: paired_ratios(brackets[name], seconds[name]) for name in VARIANTS}
            steady = {name: steady_ratios(brackets[name], ratios[name]) for name in VARIANTS}
            timed["seconds"] += timed_guard.check_seconds - check_before[0]
            timed["checked"] += timed_guard.checked - check_before[1]
            timed["groups"] += timed_guard.groups - check_before[2]
            lat_batches = batches[: latency_reps_for(block * batch)]
            latency = {
                "raw": latency_raw(raw, lat_batches) * 1e6,
                "stock": on_backend(latency_backend, backends["stock"], compute, lat_batches) * 1e6,
                "ordered": on_backend(latency_backend, ordered, compute, lat_batches) * 1e6,
            }
            total = block * batch * len(batches)
            gbps = {k: total * len(v) / sum(v) / 1e9 for k, v in seconds.items()}
            stats = verified.verify_stats
            raw_pairs = [
                after / before - 1.0
                for before, after in zip(seconds["raw"][0::2], seconds["raw"][1::2], strict=True)
            ]
            rows.append(
                {
                    "block_bytes": block,
                    "batch_blocks": batch,
                    "stores": len(batches),
                    "gbps": gbps,
                    "seconds": seconds,
                    "paired_ratios": ratios,
                    "steady_ratios": steady,
                    "brackets": brackets,
                    "raw_spread": (max(seconds["raw"]) - min(seconds["raw"]))
                    / statistics.median(seconds["raw"]),
                    # How far a raw window and the raw window after the variant's differ: what a
                    # pair's own noise is, in the median and at worst.
                    "raw_bracket_change_median": statistics.median(abs(d) for d in raw_pairs),
                    "raw_bracket_change_max": max(abs(d) for d in raw_pairs),
                    "latency_us": latency,
                    "mean_group": (timed_guard.checked - check_before[1])
                    / max(1, timed_guard.groups - check_before[2]),
                    # Blocks verified in this configuration (warm-up and windows); the groups the
                    # verify thread checked, its CPU time.
                    "verified_blocks": verified.counters["verified"] - verified_before,
                    "verify_stats": {k: stats[k] - stats_before[k] for k in stats},
                }
            )
            print(
                f"{block >> 10:5d} KiB x {batch:4d}: "
                + ", ".join(f"{k} {v:6.2f}" for k, v in gbps.items())
                + " GB/s; paired ratio to raw "
                + ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in ratios.items())
                + "; steady pairs "
                + ", ".join(f"{k} {len(v)}" for k, v in steady.items()),
                flush=True,
            )
        for backend in backends.values():
            backend.shutdown()
    extra["check_us_grouped"] = timed["seconds"] / max(1, timed["checked"]) * 1e6
    extra["mean_group_ordered"] = timed["checked"] / max(1, timed["groups"])
    return {"device": torch.cuda.get_device_name(device), "torch": torch.__version__, "rows": rows, **extra}


def quartiles(values: list[float]) -> list[float]:
    """Lower quartile, median, upper quartile."""
    ordered = sorted(values)
    if len(ordered) < 2:
        return ordered * 3
    low, middle, high = statistics.quantiles(ordered, n=4)
    return [low, middle, high]


def summarize(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One flat row per configuration. `*_ratio`: the median paired ratio to raw (the figure
    held against the targets); `*_ratio_quartiles`: its spread over the repeats; the GB/s are
    each variant's bytes over its total time in all windows."""
    flat = []
    for row in rows:
        g, lat, paired = row["gbps"], row["latency_us"], row["paired_ratios"]
        flat.append(
            {
                "block_bytes": row["block_bytes"],
                "batch_blocks": row["batch_blocks"],
                "stores": row["stores"],
                "raw_gbps": g["raw"],
                "stock_gbps": g["stock"],
                "ordered_gbps": g["ordered"],
                "verified_gbps": g["verified"],
                **{f"{name}_ratio": statistics.median(paired[name]) for name in VARIANTS},
                **{f"{name}_ratio_quartiles": quartiles(paired[name]) for name in VARIANTS},
                **{
                    f"{name}_ratio_steady": (
                        statistics.median(row["steady_ratios"][name])
                        if len(row["steady_ratios"][name]) >= MIN_STEADY_PAIRS
                        else None
                    )
                    for name in VARIANTS
                },
                **{f"{name}_steady_pairs": len(row["steady_ratios"][name]) for name in VARIANTS},
                # Every pair, for anyone who wants another cut: ratio, raw before, raw after.
                **{
                    f"{name}_pairs": [
                        [ratio, before, after]
                        for ratio, before, after in zip(
                            paired[name],
                            row["brackets"][name][0::2],
                            row["brackets"][name][1::2],
                            strict=True,
                        )
                    ]
                    for name in VARIANTS
                },
                "ordered_vs_stock": g["ordered"] / g["stock"],
                "verified_vs_ordered": g["verified"] / g["ordered"],
                "raw_spread": row["raw_spread"],
                "raw_bracket_change_median": row["raw_bracket_change_median"],
                "raw_bracket_change_max": row["raw_bracket_change_max"],
                "latency_raw_us": lat["raw"],
                "latency_ordered_us": lat["ordered"],
                "latency_stock_us": lat["stock"],
                "latency_ratio": lat["raw"] / lat["ordered"],
                "latency_ordered_vs_stock": lat["stock"] / lat["ordered"],
                "mean_group": row["mean_group"],
                "verified_blocks": row["verified_blocks"],
                "verify_stats": row["verify_stats"],
            }
        )
    return flat


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cpu-child", choices=["guarded", "unguarded"])
    parser.add_argument("--sweep", action="store_true", help="run the sweep (a child process)")
    parser.add_argument("--result", type=Path, help="where a child writes its result")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    args = parser.parse_args()
    if args.quick:
        use_quick_settings()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.cpu_child or args.sweep:
        child = cpu_child(args.cpu_child) if args.cpu_child else sweep()
        args.result.write_text(json.dumps(child))
        return
    phases: dict[str, float] = {}
    began = time.perf_counter()
    guard = guard_overhead(args.out)
    phases["guard_overhead_s"] = time.perf_counter() - began
    print(
        f"guard end to end: pipelined {guard['end_to_end_us_per_store_pipelined']:.2f} us, "
        f"one at a time {guard['end_to_end_us_per_store_one_at_a_time']:.2f} us; mean group "
        f"pipelined {guard['children'][0]['guarded']['pipelined_mean_group']:.1f} guarded, "
        f"{guard['children'][0]['unguarded']['pipelined_mean_group']:.1f} unguarded",
        flush=True,
    )
    mark = time.perf_counter()
    swept = run_child(args.out, "--sweep")
    phases["sweep_s"] = time.perf_counter() - mark
    for key, value in swept.items():
        if key not in ("rows", "device", "torch"):
            guard[key] = value
    rows = summarize(swept["rows"])
    result: dict[str, Any] = {
        "device": swept["device"],
        "torch": swept["torch"],
        "guard": guard,
        "bandwidth": rows,
        "phases": phases,
        "settings": {
            "repeats": REPEATS,
            "swinging_repeats": SWINGING_REPEATS,
            "steady_bracket": STEADY_BRACKET,
            "min_steady_pairs": MIN_STEADY_PAIRS,
            "window_bytes": WINDOW_BYTES,
            "max_stores": MAX_STORES,
            "min_stores": MIN_STORES,
            "max_group_blocks": GroupLimits().max_group_blocks,
        },
    }
    plot(rows, args.out / "bench.png", str(swept["device"]))
    phases["total_s"] = time.perf_counter() - began
    (args.out / "bench.json").write_text(json.dumps(result, indent=2))
    print("benchmark phases: " + ", ".join(f"{k} {v:.1f}" for k, v in phases.items()), flush=True)


def plot(rows: list[dict[str, Any]], path: Path, device: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    figure, axes = plt.subplots(2, len(BATCHES), figsize=(5 * len(BATCHES), 9), sharex=True)
    series = [
        ("raw_gbps", "raw batch copy (no barrier, no guard)", "o-", "k"),
        ("stock_gbps", "stock-shaped thread (no barrier, no guard)", "d-", "C7"),
        ("ordered_gbps", "kvguard ordered + guarded", "s--", "C0"),
        ("verified_gbps", "kvguard + 1% verification", "^:", "C3"),
    ]
    ratios = [
        ("ordered_ratio", "ordered+guarded / raw (median paired)", "s--", "C0"),
        ("verified_ratio", "1% verified / raw (median paired)", "^:", "C3"),
        ("stock_ratio", "stock-shaped / raw (median paired)", "d-", "C7"),
    ]
    for column, batch in enumerate(BATCHES):
        mine = [r for r in rows if r["batch_blocks"] == batch]
        sizes = [r["block_bytes"] >> 10 for r in mine]
        top, bottom = axes[0][column], axes[1][column]
        for key, label, style, color in series:
            top.plot(sizes, [r[key] for r in mine], style, color=color, label=label)
        for key, label, style, color in ratios:
            middle = [r[key] for r in mine]
            spread = [
                [m - r[f"{key}_quartiles"][0] for m, r in zip(middle, mine, strict=True)],
                [r[f"{key}_quartiles"][2] - m for m, r in zip(middle, mine, strict=True)],
            ]
            bottom.errorbar(sizes, middle, yerr=spread, fmt=style, color=color, label=label, capsize=3)
        top.set_title(f"{batch} block{'s' if batch > 1 else ''} per store")
        top.set_yscale("log")
        top.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        top.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        top.yaxis.set_minor_formatter(ticker.NullFormatter())
        bottom.axhline(0.98, color="k", lw=0.8)
        bottom.axhline(0.97, color="gray", lw=0.8, ls=":")
        bottom.set_xlabel("block size (KiB)")
        for ax in (top, bottom):
            ax.set_xscale("log", base=2)
            ax.set_xticks(sizes)
            ax.set_xticklabels([str(size) for size in sizes])
            ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("store bandwidth, GPU to pinned host (GB/s)")
    axes[1][0].set_ylabel(
        "ratio to raw, median of paired repeats, bars: quartiles\n(1 = as fast; lines at 0.98 and 0.97)"
    )
    axes[0][0].legend(fontsize=7)
    axes[1][0].legend(fontsize=7)
    figure.suptitle(f"kvguard store bandwidth on {device}, stores launched back to back")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
