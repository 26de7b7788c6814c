"""Store bandwidth of kvguard's ordered, guarded backend against a raw batch copy, on a GPU.

Writes bench.json and bench.png to --out. Run by benchmarks/runtime_gpu_suite.py.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend, process_event_log

BLOCK_SIZES = [16 << 10, 64 << 10, 256 << 10, 1 << 20, 2 << 20]
BATCHES = [1, 16, 128, 1024]
HOST_BLOCKS = 1024
REPEATS = 3


def barrier_host_cost(pairs: int = 20_000) -> float:
    """Host CPU microseconds of one store's event traffic: record, wait, completion record."""
    compute, transfer = torch.cuda.Stream(), torch.cuda.Stream()
    events = [torch.cuda.Event() for _ in range(2 * pairs)]
    torch.cuda.synchronize()
    start = time.thread_time()
    for i in range(pairs):
        events[2 * i].record(compute)
        transfer.wait_event(events[2 * i])
        events[2 * i + 1].record(transfer)
    elapsed = time.thread_time() - start
    torch.cuda.synchronize()
    return elapsed / pairs * 1e6


def reps_for(store_bytes: int) -> int:
    return max(10, min(1000, (4 << 30) // store_bytes))


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


class TimedCheckBackend(OrderedCopyBackend):
    """Records the host time of every guard check (the part of the guard not in callbacks)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check_seconds: list[float] = []
        check = self._guard.check

        def timed(*check_args: Any) -> Any:
            # CPU time of this thread: wall time here would include waiting for the GIL.
            start = time.thread_time()
            verdict = check(*check_args)
            self.check_seconds.append(time.thread_time() - start)
            return verdict

        self._guard.check = timed  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rng = random.Random(0)
    device = torch.device("cuda", 0)

    cost_untraced = barrier_host_cost()  # before any guard exists: no trace callbacks yet
    process_event_log()
    cost_traced = barrier_host_cost()
    callback_us = max(0.0, cost_traced - cost_untraced)

    max_block = max(BLOCK_SIZES)
    gpu_bytes = torch.empty(2 * HOST_BLOCKS * max_block, dtype=torch.uint8, device=device)
    host_bytes = torch.empty(HOST_BLOCKS * max_block, dtype=torch.uint8).pin_memory()
    compute = torch.cuda.Stream()
    low, _ = torch.cuda.Stream.priority_range()
    rows: list[dict[str, Any]] = []
    check_seconds: list[float] = []
    for block in BLOCK_SIZES:
        gpu = {"kv": gpu_bytes[: 2 * HOST_BLOCKS * block].view(2 * HOST_BLOCKS, block)}
        cpu = {"kv": host_bytes[: HOST_BLOCKS * block].view(HOST_BLOCKS, block)}
        store_stream = torch.cuda.Stream(priority=low)
        raw = BatchCopier(gpu, cpu, store_stream)
        ordered = TimedCheckBackend(GuardPolicy.RAISE)
        verified = OrderedCopyBackend(GuardPolicy.RAISE, verify_fraction=0.01, verify_seed=0)
        for backend in (ordered, verified):
            backend.init(gpu, cpu, device, torch.cuda.Stream(priority=low),
                         torch.cuda.Stream(priority=low))
        for batch in BATCHES:
            reps = reps_for(block * batch)
            batches = [
                (rng.sample(range(2 * HOST_BLOCKS), batch), rng.sample(range(HOST_BLOCKS), batch))
                for _ in range(reps)
            ]
            time_raw(raw, batches[:3])  # warm-up
            time_backend(ordered, compute, batches[:3])
            time_backend(verified, compute, batches[:3])
            ordered.check_seconds.clear()
            seconds: dict[str, list[float]] = {"raw": [], "ordered": [], "verified": []}
            for _ in range(REPEATS):  # interleaved so drift hits all three alike
                seconds["raw"].append(time_raw(raw, batches))
                seconds["ordered"].append(time_backend(ordered, compute, batches))
                seconds["verified"].append(time_backend(verified, compute, batches))
            check_seconds.extend(ordered.check_seconds)
            total = block * batch * reps
            bandwidth = {k: total / statistics.median(v) / 1e9 for k, v in seconds.items()}
            rows.append({
                "block_bytes": block, "batch_blocks": batch, "stores": reps,
                "raw_gbps": bandwidth["raw"], "ordered_gbps": bandwidth["ordered"],
                "verified_gbps": bandwidth["verified"],
                "ordered_ratio": bandwidth["ordered"] / bandwidth["raw"],
                "verified_ratio": bandwidth["verified"] / bandwidth["raw"],
                "verified_blocks": verified.counters["verified"],
            })
            print(f"{block >> 10:5d} KiB x {batch:4d}: raw {bandwidth['raw']:6.1f} GB/s, "
                  f"ordered {rows[-1]['ordered_ratio']:.3f}x, "
                  f"verified {rows[-1]['verified_ratio']:.3f}x", flush=True)
        for backend in (ordered, verified):
            backend.shutdown()

    check_us = sorted(s * 1e6 for s in check_seconds)
    guard = {
        "trace_callbacks_us_per_store": callback_us,
        "event_traffic_us_untraced": cost_untraced, "event_traffic_us_traced": cost_traced,
        "check_us_median": statistics.median(check_us),
        "check_us_p99": check_us[int(0.99 * (len(check_us) - 1))],
        "check_us_mean": statistics.fmean(check_us), "checks": len(check_us),
    }
    guard["overhead_us_per_store"] = guard["check_us_mean"] + callback_us
    result = {"device": torch.cuda.get_device_name(device), "torch": torch.__version__,
              "guard": guard, "bandwidth": rows}
    (args.out / "bench.json").write_text(json.dumps(result, indent=2))
    plot(rows, args.out / "bench.png", result["device"])


def plot(rows: list[dict[str, Any]], path: Path, device: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(9, 5.5))
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
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.set_xlabel("block size (KiB)")
    axis.set_ylabel("store bandwidth, GPU to pinned host (GB/s)")
    axis.set_title(f"kvguard store bandwidth on {device}")
    axis.grid(True, which="both", alpha=0.3)
    axis.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
