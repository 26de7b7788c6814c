"""Where a burst's first milliseconds go: raw against the ordered backend, per window.

Ran against commit 7b44b8c (groups capped at 256 blocks from the first, hand-over at 64 queued
requests); output in benchmarks/results/probes-h200/startup_timeline.txt. To rerun:
`git checkout 7b44b8c && PYTHONPATH=. python3 benchmarks/probes/startup_timeline.py`.

For each configuration, six windows of about 1 GiB: raw (wall and GPU time between events
around the loop), then the ordered backend with the time of the launch loop, when the copy
thread's first driver call began and how long it took, the number of groups and the GPU time
from just before the first copy to the end.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

import torch

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend

HOST_BLOCKS = 1024


class Traced(OrderedCopyBackend):
    """Notes each driver call's start and end, and records an event before the first one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.marks: list[tuple[float, float, int]] = []
        self.first_copy: list[Any] = []

    def _issue_copy(self, copier: Any, src: Any, dst: Any, *rest: Any) -> None:
        began = time.perf_counter()
        if not self.marks:
            event = torch.cuda.Event(enable_timing=True)
            event.record(copier.stream)
            self.first_copy.append(event)
        super()._issue_copy(copier, src, dst, *rest)
        self.marks.append((began, time.perf_counter(), len(src)))


def main() -> None:
    device = torch.device("cuda", 0)
    gpu_bytes = torch.randint(0, 256, (2 * HOST_BLOCKS * (2 << 20),), dtype=torch.uint8,
                              device=device)
    host_bytes = torch.empty(HOST_BLOCKS * (2 << 20), dtype=torch.uint8).pin_memory()
    low, _ = torch.cuda.Stream.priority_range()
    compute = torch.cuda.Stream()
    for block, batch in ((1 << 20, 16), (2 << 20, 16), (256 << 10, 16), (1 << 20, 128)):
        gpu = {"kv": gpu_bytes[: 2 * HOST_BLOCKS * block].view(2 * HOST_BLOCKS, block)}
        cpu = {"kv": host_bytes[: HOST_BLOCKS * block].view(HOST_BLOCKS, block)}
        raw = BatchCopier(gpu, cpu, torch.cuda.Stream(priority=low))
        backend = Traced(GuardPolicy.RAISE)
        backend.init(gpu, cpu, device, torch.cuda.Stream(priority=low),
                     torch.cuda.Stream(priority=low))
        rng = random.Random(1)
        stores = max(2, (1 << 30) // (block * batch))
        batches = [(rng.sample(range(2 * HOST_BLOCKS), batch), rng.sample(range(HOST_BLOCKS), batch))
                   for _ in range(stores)]
        raw_lines, ordered_lines = [], []
        for _ in range(6):  # a raw window, then an ordered one
            torch.cuda.synchronize()
            start_event = torch.cuda.Event(enable_timing=True)
            end_event = torch.cuda.Event(enable_timing=True)
            began = time.perf_counter()
            start_event.record(raw.stream)
            for src, dst in batches:
                raw.copy(src, dst)
            end_event.record(raw.stream)
            raw.stream.synchronize()
            raw_lines.append(f"  raw  wall {(time.perf_counter() - began) * 1e3:.2f} ms gpu "
                             f"{start_event.elapsed_time(end_event):.2f} ms")
            backend.marks.clear()
            backend.first_copy.clear()
            events: list[tuple[int, Any]] = []
            torch.cuda.synchronize()
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
            marks = backend.marks
            ordered_lines.append(
                f"  ord  wall {wall * 1e3:.2f} ms gpu(first copy->end) "
                f"{backend.first_copy[0].elapsed_time(end):.2f} ms; launch loop "
                f"{(launched - began) * 1e3:.2f} ms; first issue at "
                f"{(marks[0][0] - began) * 1e3:.2f} ms taking "
                f"{(marks[0][1] - marks[0][0]) * 1e3:.3f} ms; groups {len(marks)} mean issue "
                f"{statistics.mean(m[1] - m[0] for m in marks) * 1e3:.3f} ms; last issue end "
                f"{(marks[-1][1] - began) * 1e3:.2f} ms; drained {(drained - began) * 1e3:.2f} ms")
        print(f"{block >> 10} KiB x {batch}: stores {stores}")
        print("\n".join(raw_lines + ordered_lines))
        backend.shutdown()


if __name__ == "__main__":
    main()
