"""64K x 1024: per window, raw and ordered (pinned as the sweep), host time of each driver call,
gaps between calls, GPU time from the first copy to the end. Which windows are slow, and why."""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "probes"))
from paired_rows import Pinned, caches  # noqa: E402
import runtime_bench as rb  # noqa: E402

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend  # noqa: E402


class Traced(OrderedCopyBackend):
    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.marks: list[tuple[float, float, int]] = []
        self.first: Any = None

    def _issue_copy(self, copier: Any, src: Any, dst: Any, *rest: Any) -> None:
        began = time.perf_counter()
        if self.first is None:
            self.first = torch.cuda.Event(enable_timing=True)
            self.first.record(copier.stream)
        super()._issue_copy(copier, src, dst, *rest)
        self.marks.append((began, time.perf_counter(), len(src)))


def main() -> None:
    block, batch = 64 << 10, int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    pinned = Pinned()
    gpu, cpu = caches(block)
    batches = rb.batches_for(block, batch)
    raw = BatchCopier(gpu, cpu, torch.cuda.Stream())
    backend = pinned.start(Traced(GuardPolicy.RAISE), gpu, cpu)
    compute = torch.cuda.Stream()
    rb.time_raw(raw, batches[:3]); pinned.window(backend, compute, batches[:3])
    for w in range(30):
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        calls = []
        began = time.perf_counter()
        s.record(raw.stream)
        for src, dst in batches:
            t = time.perf_counter(); raw.copy(src, dst); calls.append(time.perf_counter() - t)
        e.record(raw.stream)
        raw.stream.synchronize()
        raw_wall = time.perf_counter() - began
        raw_line = (f"raw wall {raw_wall*1e3:.2f} gpu {s.elapsed_time(e):.2f} calls "
                    f"{statistics.mean(calls)*1e3:.3f}")
        backend.marks.clear(); backend.first = None
        events: list[Any] = []
        torch.cuda.synchronize()
        rb.pin(0, pinned.request_cpu)
        began = time.perf_counter()
        with torch.cuda.stream(compute):
            for i, (src, dst) in enumerate(batches):
                backend.launch_copy(src, dst, True, i, events)
        launched = time.perf_counter()
        backend.drain()
        drained = time.perf_counter()
        end = torch.cuda.Event(enable_timing=True)
        end.record(backend._store_copier.stream)
        events[-1][1].synchronize(); end.synchronize()
        wall = time.perf_counter() - began
        rb.pin(0, pinned.copy_cpu)
        m = backend.marks
        gaps = [m[i + 1][0] - m[i][1] for i in range(len(m) - 1)]
        print(f"{w:2d} ratio {raw_wall/wall:.3f} | {raw_line} | ord wall {wall*1e3:.2f} gpu "
              f"{backend.first.elapsed_time(end):.2f} launch {(launched-began)*1e3:.2f} first "
              f"{(m[0][0]-began)*1e3:.2f} calls {len(m)} mean {statistics.mean(x[1]-x[0] for x in m)*1e3:.3f} "
              f"max {max(x[1]-x[0] for x in m)*1e3:.3f} gaps mean {statistics.mean(gaps)*1e3 if gaps else 0:.3f} "
              f"max {max(gaps)*1e3 if gaps else 0:.3f} last end {(m[-1][1]-began)*1e3:.2f} drained {(drained-began)*1e3:.2f}",
              flush=True)
    backend.shutdown()


if __name__ == "__main__":
    main()
