"""Why ordered+guarded trails raw on 64 KiB x 1,024 (and x 128) in some windows: per window,
raw's wall and GPU time and its driver calls' host time, then the ordered backend's wall time,
GPU time from its first copy to the end, the launch loop, when its first driver call began,
its calls' host time and the gaps between them. Pinned as the sweep.

Ran against commit 2c03ce9's runtime (that of c58711b); output in
benchmarks/results/probes-h200/slow_mode.txt (x 1,024, then the last 12 windows of x 128).
Usage: `cd benchmarks/probes && PYTHONPATH=../.. python3 slow_mode.py [BLOCKS_PER_STORE]`.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import torch
from paired_rows import Pinned, caches, rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend


class Traced(OrderedCopyBackend):
    """Notes each driver call's start and end, and records an event before the first one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.marks: list[tuple[float, float]] = []
        self.first: Any = None

    def _issue_copy(self, copier: Any, src: Any, dst: Any, *rest: Any) -> None:
        began = time.perf_counter()
        if self.first is None:
            self.first = torch.cuda.Event(enable_timing=True)
            self.first.record(copier.stream)
        super()._issue_copy(copier, src, dst, *rest)
        self.marks.append((began, time.perf_counter()))


def raw_window(raw: BatchCopier, batches: rb.Batches) -> tuple[float, str]:
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    calls = []
    began = time.perf_counter()
    start.record(raw.stream)
    for src, dst in batches:
        call = time.perf_counter()
        raw.copy(src, dst)
        calls.append(time.perf_counter() - call)
    end.record(raw.stream)
    raw.stream.synchronize()
    wall = time.perf_counter() - began
    return wall, (f"raw wall {wall * 1e3:.2f} gpu {start.elapsed_time(end):.2f} calls "
                  f"{statistics.mean(calls) * 1e3:.3f}")


def ordered_window(pinned: Pinned, backend: Traced, compute: torch.cuda.Stream,
                   batches: rb.Batches) -> tuple[float, str]:
    backend.marks.clear()
    backend.first = None
    events: list[Any] = []
    torch.cuda.synchronize()
    rb.pin(0, pinned.request_cpu)
    began = time.perf_counter()
    with torch.cuda.stream(compute):
        for index, (src, dst) in enumerate(batches):
            backend.launch_copy(src, dst, True, index, events)
    launched = time.perf_counter()
    backend.drain()
    drained = time.perf_counter()
    end = torch.cuda.Event(enable_timing=True)
    assert backend._store_copier is not None
    end.record(backend._store_copier.stream)
    events[-1][1].synchronize()
    end.synchronize()
    wall = time.perf_counter() - began
    rb.pin(0, pinned.copy_cpu)
    marks = backend.marks
    calls = [stop - start for start, stop in marks]
    gaps = [marks[i + 1][0] - marks[i][1] for i in range(len(marks) - 1)] or [0.0]
    return wall, (
        f"ord wall {wall * 1e3:.2f} gpu {backend.first.elapsed_time(end):.2f} launch "
        f"{(launched - began) * 1e3:.2f} first {(marks[0][0] - began) * 1e3:.2f} calls "
        f"{len(marks)} mean {statistics.mean(calls) * 1e3:.3f} max {max(calls) * 1e3:.3f} "
        f"gaps mean {statistics.mean(gaps) * 1e3:.3f} max {max(gaps) * 1e3:.3f} last end "
        f"{(marks[-1][1] - began) * 1e3:.2f} drained {(drained - began) * 1e3:.2f}")


def main() -> None:
    block, batch = 64 << 10, int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    pinned = Pinned()
    gpu, cpu = caches(block)
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    backend = pinned.start(Traced(GuardPolicy.RAISE), gpu, cpu)
    compute = torch.cuda.Stream()
    rb.time_raw(raw, batches[:3])
    pinned.window(backend, compute, batches[:3])
    for window in range(30):
        raw_wall, raw_line = raw_window(raw, batches)
        wall, ordered_line = ordered_window(pinned, backend, compute, batches)
        print(f"{window:2d} ratio {raw_wall / wall:.3f} | {raw_line} | {ordered_line}", flush=True)
    backend.shutdown()


if __name__ == "__main__":
    main()
