"""Where the copy thread's time goes per window, ordered against 1% verified, on small blocks.

Ran against commit de9e6f5 (verification: sampled blocks copied first, their staging in a call
of its own, a blocking-sync staged event); output in
benchmarks/results/probes-h200/group_host_time.txt. To rerun:
`git checkout de9e6f5 && PYTHONPATH=. python3 benchmarks/probes/group_host_time.py`.

Per window: wall and GPU time (raw's beside), the groups and driver-side calls made, the copy
thread's time inside `_issue` and, of that, inside the driver-side calls (copies, staging,
staged-event records), and its time between groups.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import runtime_bench as rb

from kvguard.runtime import BatchCopier, GuardPolicy, OrderedCopyBackend


class Instrumented(OrderedCopyBackend):
    def reset(self) -> None:
        self.in_issue = self.in_calls = self.between = 0.0
        self.groups = self.calls = 0
        self.last_end: float | None = None
        self.first_event: Any = None

    def _issue(self, group: Any) -> None:
        began = time.perf_counter()
        if self.last_end is not None:
            self.between += began - self.last_end
        if self.first_event is None:
            assert self._store_copier is not None
            self.first_event = torch.cuda.Event(enable_timing=True)
            self.first_event.record(self._store_copier.stream)
        super()._issue(group)
        ended = time.perf_counter()
        self.in_issue += ended - began
        self.groups += 1
        self.last_end = ended

    def _timed(self, call: Any, *args: Any) -> Any:
        began = time.perf_counter()
        result = call(*args)
        self.in_calls += time.perf_counter() - began
        self.calls += 1
        return result

    def _issue_copy(self, *args: Any) -> None:
        self._timed(super()._issue_copy, *args)

    def _stage(self, *args: Any) -> Any:
        return self._timed(super()._stage, *args)

    def _record_staged(self, *args: Any) -> Any:
        return self._timed(super()._record_staged, *args)


def main() -> None:
    device = torch.device("cuda", 0)
    rb.HOST_BLOCKS = 1024
    largest = 256 << 10
    pattern = torch.randint(0, 256, (16 << 10,), dtype=torch.uint8, device=device)
    gpu_bytes = pattern.repeat(2 * 1024 * largest // (16 << 10))
    host_bytes = torch.empty(1024 * largest, dtype=torch.uint8).pin_memory()
    compute = torch.cuda.Stream()
    low, _ = torch.cuda.Stream.priority_range()
    for block, batch in ((16 << 10, 128), (64 << 10, 128), (64 << 10, 16), (256 << 10, 16)):
        gpu = {"kv": gpu_bytes[: 2048 * block].view(2048, block)}
        cpu = {"kv": host_bytes[: 1024 * block].view(1024, block)}
        raw = BatchCopier(gpu, cpu, torch.cuda.Stream(priority=low))
        variants = {"ord": Instrumented(GuardPolicy.RAISE),
                    "ver": Instrumented(GuardPolicy.RAISE, verify_fraction=0.01, verify_seed=0)}
        for backend in variants.values():
            backend.init(gpu, cpu, device, torch.cuda.Stream(priority=low),
                         torch.cuda.Stream(priority=low))
        batches = rb.batches_for(block, batch)
        print(f"{block >> 10} KiB x {batch} ({len(batches)} stores)")
        for _ in range(4):
            for name, backend in variants.items():
                torch.cuda.synchronize()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                began = time.perf_counter()
                start.record(raw.stream)
                for src, dst in batches:
                    raw.copy(src, dst)
                end.record(raw.stream)
                raw.stream.synchronize()
                raw_wall, raw_gpu = time.perf_counter() - began, start.elapsed_time(end) / 1e3
                backend.reset()
                wall = rb.time_backend(backend, compute, batches)
                done = torch.cuda.Event(enable_timing=True)
                assert backend._store_copier is not None
                done.record(backend._store_copier.stream)
                done.synchronize()
                gpu_time = backend.first_event.elapsed_time(done) / 1e3
                print(f"  {name}: wall {wall * 1e3:6.1f} (raw {raw_wall * 1e3:6.1f}) gpu "
                      f"{gpu_time * 1e3:6.1f} (raw {raw_gpu * 1e3:6.1f}) ms; groups "
                      f"{backend.groups} calls {backend.calls}; in _issue "
                      f"{backend.in_issue * 1e3:6.1f} ms of which driver-ish "
                      f"{backend.in_calls * 1e3:6.1f}; between groups {backend.between * 1e3:6.1f} "
                      f"ms; verify cpu {backend.verify_stats['cpu_s'] * 1e3:.1f}", flush=True)
        for backend in variants.values():
            backend.shutdown()


if __name__ == "__main__":
    main()
