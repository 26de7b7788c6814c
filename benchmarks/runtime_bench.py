"""Store bandwidth of kvguard's ordered, guarded backend against a raw batch copy, on a GPU.

Writes bench.json and bench.png to --out. Run by benchmarks/runtime_gpu_suite.py.

Measured side by side in one process, interleaved so drift hits every variant alike:
- raw: `BatchCopier.copy` in a loop on one thread, no barrier, no guard (the same planner and
  driver call the backend uses);
- ordered: `OrderedCopyBackend(policy="raise")`, every store requested from a compute stream and
  launched back to back, as a worker does when stores pile up (throughput, many in flight);
- ordered_one_per_wakeup: the same with `max_group = 1` (no grouping of queued requests);
- verified: ordered with 1% sampled verification;
- single-store latency: one store at a time, each waited for before the next (raw: copy and
  stream synchronize; ordered: launch_copy, wait for its completion event to be reported, then
  synchronize it).
Guard host overhead is measured end to end: the host CPU time per store of the guarded backend
minus that of the same backend with the guard's checks skipped and PyTorch's trace callbacks
never activated, each in a fresh process, plus a breakdown of where the difference goes.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import torch

from kvguard.runtime import (
    BatchCopier,
    CopyGuard,
    GuardPolicy,
    OrderedCopyBackend,
    StreamEventLog,
    process_event_log,
)

BLOCK_SIZES = [16 << 10, 64 << 10, 256 << 10, 1 << 20, 2 << 20]
BATCHES = [1, 16, 128, 1024]
HOST_BLOCKS = 1024
REPEATS = 3
CPU_STORES = 20_000  # guard overhead workload: 16 KiB single-block stores (host-bound)


def reps_for(store_bytes: int) -> int:
    return max(10, min(1000, (4 << 30) // store_bytes))


def latency_reps_for(store_bytes: int) -> int:
    return max(20, min(200, (256 << 20) // store_bytes))


class UnguardedBackend(OrderedCopyBackend):
    """The same backend with the guard's checks skipped and no trace callbacks (baseline)."""

    def _make_guard(self, policy: GuardPolicy) -> CopyGuard:
        return CopyGuard(policy, event_log=StreamEventLog())  # a private log nothing feeds

    def _check(self, group: Any, copier: BatchCopier) -> Any:
        return group


class TimedBackend(OrderedCopyBackend):
    """Records the copy thread's CPU time in the guard's checks, and the group sizes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check_seconds = 0.0
        self.checked = 0
        self.groups = 0

    def _check(self, group: Any, copier: BatchCopier) -> Any:
        start = time.thread_time()  # CPU time of this thread: wall time would count GIL waits
        ok = super()._check(group, copier)
        self.check_seconds += time.thread_time() - start
        self.checked += len(group)
        self.groups += 1
        return ok


class OnePerWakeupBackend(OrderedCopyBackend):
    max_group = 1


def time_raw(copier: BatchCopier, batches: list[tuple[list[int], list[int]]]) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for src, dst in batches:
        copier.copy(src, dst)
    copier.stream.synchronize()
    return time.perf_counter() - start


def time_backend(backend: OrderedCopyBackend, compute: torch.cuda.Stream,
                 batches: list[tuple[list[int], list[int]]]) -> float:
    events: list[tuple[int, Any]] = []
    torch.cuda.synchronize()
    start = time.perf_counter()
    with torch.cuda.stream(compute):
        for idx, (src, dst) in enumerate(batches):
            backend.launch_copy(src, dst, True, idx, events)
    backend.drain()
    events[-1][1].synchronize()
    elapsed = time.perf_counter() - start
    assert len(events) == len(batches)
    return elapsed


def latency_raw(copier: BatchCopier, batches: list[tuple[list[int], list[int]]]) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    for src, dst in batches:
        copier.copy(src, dst)
        copier.stream.synchronize()
    return (time.perf_counter() - start) / len(batches)


def latency_backend(backend: OrderedCopyBackend, compute: torch.cuda.Stream,
                    batches: list[tuple[list[int], list[int]]]) -> float:
    events: list[tuple[int, Any]] = []
    torch.cuda.synchronize()
    start = time.perf_counter()
    with torch.cuda.stream(compute):
        for idx, (src, dst) in enumerate(batches):
            backend.launch_copy(src, dst, True, idx, events)
            while len(events) <= idx:
                time.sleep(0)  # yields the GIL to the copy thread
            events[idx][1].synchronize()
    return (time.perf_counter() - start) / len(batches)


def trace_cost_per_store(stores: int = 20_000) -> float:
    """Host microseconds of one store's traced event traffic at one store per wake-up:
    pooled compute-event record, transfer-stream wait, and a fresh completion event's
    creation, record and deletion."""
    compute, transfer = torch.cuda.Stream(), torch.cuda.Stream()
    pooled = torch.cuda.Event()
    torch.cuda.synchronize()
    start = time.thread_time()
    for _ in range(stores):
        pooled.record(compute)
        transfer.wait_event(pooled)
        done = torch.cuda.Event()
        done.record(transfer)
        del done
    elapsed = time.thread_time() - start
    torch.cuda.synchronize()
    return elapsed / stores * 1e6


def cpu_child(mode: str) -> dict[str, float]:
    """Host CPU per store (all threads) of the guarded or unguarded backend, this process."""
    device = torch.device("cuda", 0)
    gpu = {"kv": torch.zeros(2048, 4096, dtype=torch.int32, device=device)}
    cpu = {"kv": torch.zeros(1024, 4096, dtype=torch.int32).pin_memory()}
    low, _ = torch.cuda.Stream.priority_range()
    backend = (UnguardedBackend if mode == "unguarded" else OrderedCopyBackend)(GuardPolicy.RAISE)
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
            cpu_start, wall_start = time.process_time(), time.perf_counter()
            with torch.cuda.stream(compute):
                for i in range(200 if warm else stores):
                    src, dst = ids[i]
                    backend.launch_copy([src], [dst], True, i, events)
                    if (i + 1) % chunk == 0:
                        backend.drain()  # sleeps on a threading.Event: no CPU while waiting
            backend.drain()
            cpu_us = (time.process_time() - cpu_start) / stores * 1e6
            wall_us = (time.perf_counter() - wall_start) / stores * 1e6
            torch.cuda.synchronize()
        result[f"{name}_cpu_us"] = cpu_us
        result[f"{name}_wall_us"] = wall_us
    backend.shutdown()
    return result


def guard_overhead(out: Path) -> dict[str, Any]:
    children = {}
    for mode in ("unguarded", "guarded"):
        proc = subprocess.run(
            [sys.executable, __file__, "--out", str(out), "--cpu-child", mode],
            capture_output=True, text=True, check=True,
        )
        children[mode] = json.loads(proc.stdout.strip().splitlines()[-1])
    untraced = trace_cost_per_store()  # this process has not activated the trace yet
    log = process_event_log()
    traced = trace_cost_per_store()
    guard = CopyGuard(GuardPolicy.RAISE, event_log=log)
    start = time.perf_counter()
    for i in range(20_000):
        guard.open_request(1, True, i, (1,), (2,))
    open_us = (time.perf_counter() - start) / 20_000 * 1e6
    return {
        "children": children,
        "end_to_end_us_per_store_pipelined": children["guarded"]["pipelined_cpu_us"]
        - children["unguarded"]["pipelined_cpu_us"],
        "end_to_end_us_per_store_one_at_a_time": children["guarded"]["one_at_a_time_cpu_us"]
        - children["unguarded"]["one_at_a_time_cpu_us"],
        "trace_us_per_store_one_per_wakeup": traced - untraced,
        "event_traffic_us_untraced": untraced, "event_traffic_us_traced": traced,
        "open_request_us": open_us,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cpu-child", choices=["guarded", "unguarded"])
    args = parser.parse_args()
    if args.cpu_child:
        print(json.dumps(cpu_child(args.cpu_child)))
        return
    guard = guard_overhead(args.out)
    print(f"guard end to end: pipelined {guard['end_to_end_us_per_store_pipelined']:.2f} us, "
          f"one at a time {guard['end_to_end_us_per_store_one_at_a_time']:.2f} us; "
          f"trace {guard['trace_us_per_store_one_per_wakeup']:.2f} us", flush=True)
    rng = random.Random(0)
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
    checks = {"seconds": 0.0, "checked": 0, "groups": 0}
    for block in BLOCK_SIZES:
        gpu = {"kv": gpu_bytes[: 2 * HOST_BLOCKS * block].view(2 * HOST_BLOCKS, block)}
        cpu = {"kv": host_bytes[: HOST_BLOCKS * block].view(HOST_BLOCKS, block)}
        raw = BatchCopier(gpu, cpu, torch.cuda.Stream(priority=low))
        ordered = TimedBackend(GuardPolicy.RAISE)
        single = OnePerWakeupBackend(GuardPolicy.RAISE)
        verified = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.01, verify_seed=0)
        backends = {"ordered": ordered, "ordered_one_per_wakeup": single, "verified": verified}
        for backend in backends.values():
            backend.init(gpu, cpu, device, torch.cuda.Stream(priority=low),
                         torch.cuda.Stream(priority=low))
        for batch in BATCHES:
            reps = reps_for(block * batch)
            batches = [
                (rng.sample(range(2 * HOST_BLOCKS), batch), rng.sample(range(HOST_BLOCKS), batch))
                for _ in range(reps)
            ]
            time_raw(raw, batches[:3])  # warm-up
            for backend in backends.values():
                time_backend(backend, compute, batches[:3])
            before = (ordered.check_seconds, ordered.checked, ordered.groups)
            seconds: dict[str, list[float]] = {"raw": [], **{k: [] for k in backends}}
            for _ in range(REPEATS):  # interleaved so drift hits all variants alike
                seconds["raw"].append(time_raw(raw, batches))
                for name, backend in backends.items():
                    seconds[name].append(time_backend(backend, compute, batches))
            checks["seconds"] += ordered.check_seconds - before[0]
            checks["checked"] += ordered.checked - before[1]
            checks["groups"] += ordered.groups - before[2]
            lat_batches = batches[: latency_reps_for(block * batch)]
            lat_raw = latency_raw(raw, lat_batches)
            lat_ordered = latency_backend(ordered, compute, lat_batches)
            total = block * batch * reps
            gbps = {k: total / statistics.median(v) / 1e9 for k, v in seconds.items()}
            row: dict[str, Any] = {
                "block_bytes": block, "batch_blocks": batch, "stores": reps,
                **{f"{k}_gbps": v for k, v in gbps.items()},
                **{f"{k}_ratio": gbps[k] / gbps["raw"] for k in backends},
                "spread": {k: (max(v) - min(v)) / statistics.median(v) for k, v in seconds.items()},
                "latency_raw_us": lat_raw * 1e6, "latency_ordered_us": lat_ordered * 1e6,
                "latency_ratio": lat_raw / lat_ordered,
                "verified_blocks": verified.counters["verified"],
            }
            rows.append(row)
            print(f"{block >> 10:5d} KiB x {batch:4d}: raw {gbps['raw']:6.2f} GB/s, "
                  f"ordered {row['ordered_ratio']:.3f}x, one/wakeup "
                  f"{row['ordered_one_per_wakeup_ratio']:.3f}x, verified "
                  f"{row['verified_ratio']:.3f}x, latency {lat_raw * 1e6:7.1f} vs "
                  f"{lat_ordered * 1e6:7.1f} us", flush=True)
        for backend in backends.values():
            backend.shutdown()
    guard["check_us_mean"] = checks["seconds"] / max(1, checks["checked"]) * 1e6
    guard["checks"] = checks["checked"]
    guard["mean_group"] = checks["checked"] / max(1, checks["groups"])
    result = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__,
              "guard": guard, "bandwidth": rows}
    (args.out / "bench.json").write_text(json.dumps(result, indent=2))
    plot(rows, args.out / "bench.png", result["device"])


def plot(rows: list[dict[str, Any]], path: Path, device: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (axis, ratio_axis) = plt.subplots(1, 2, figsize=(15, 6))
    for index, batch in enumerate(BATCHES):
        mine = [r for r in rows if r["batch_blocks"] == batch]
        sizes = [r["block_bytes"] >> 10 for r in mine]
        color = f"C{index}"
        axis.plot(sizes, [r["raw_gbps"] for r in mine], "o-", color=color,
                  label=f"raw batch copy, {batch} blocks")
        axis.plot(sizes, [r["ordered_gbps"] for r in mine], "s--", color=color,
                  label=f"ordered + guarded, {batch} blocks")
        axis.plot(sizes, [r["verified_gbps"] for r in mine], "^:", color=color,
                  label=f"+ 1% verification, {batch} blocks")
        ratio_axis.plot(sizes, [r["ordered_ratio"] for r in mine], "s--", color=color,
                        label=f"ordered+guarded / raw, {batch} blocks")
        ratio_axis.plot(sizes, [r["verified_ratio"] for r in mine], "^:", color=color,
                        label=f"1% verified / raw, {batch} blocks")
        ratio_axis.plot(sizes, [r["latency_ratio"] for r in mine], "x-.", color=color,
                        label=f"single-store latency raw / ordered, {batch} blocks")
    for ax in (axis, ratio_axis):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("block size (KiB)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    axis.set_yscale("log")
    axis.set_ylabel("store bandwidth, GPU to pinned host (GB/s), stores back to back")
    axis.set_title(f"kvguard store bandwidth on {device}")
    ratio_axis.axhline(0.98, color="k", lw=0.8)
    ratio_axis.axhline(0.97, color="gray", lw=0.8, ls=":")
    ratio_axis.set_ylabel("ratio to raw (1 = as fast as raw)")
    ratio_axis.set_title("ratios: throughput (back to back) and single-store latency")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
