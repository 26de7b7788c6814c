from __future__ import annotations

import dataclasses
import queue
import time

import torch

from .counters import GpuCounters


@dataclasses.dataclass
class Snapshot:
    step: int
    timestamp: float
    slot: int
    host_values: torch.Tensor


class MetricsCollector:
    """Copies the GPU counters into a ring of pinned tensors every ``interval`` steps."""

    def __init__(self, counters: GpuCounters, interval: int = 50, num_slots: int = 4) -> None:
        self._counters = counters
        self.interval = interval
        device = counters.values.device
        # Lowest priority: the readback must never delay model kernels.
        self._stream = torch.cuda.Stream(device=device, priority=0)
        self._host = [
            torch.empty(counters.values.shape, dtype=torch.int64, pin_memory=True) for _ in range(num_slots)
        ]
        self._free: queue.SimpleQueue[int] = queue.SimpleQueue()
        for i in range(num_slots):
            self._free.put(i)
        self.snapshots: queue.Queue[Snapshot | None] = queue.Queue()
        self.dropped = 0

    def maybe_snapshot(self, step: int) -> None:
        if step % self.interval:
            return
        try:
            slot = self._free.get_nowait()
        except queue.Empty:
            # Logger is behind; skipping a sample is fine, counters are cumulative.
            self.dropped += 1
            return
        host = self._host[slot]
        with torch.cuda.stream(self._stream):
            # expect: KVG001
            host.copy_(self._counters.values, non_blocking=True)
        self.snapshots.put(Snapshot(step=step, timestamp=time.monotonic(), slot=slot, host_values=host))

    def release(self, slot: int) -> None:
        self._free.put(slot)

    def shutdown(self) -> None:
        self.snapshots.put(None)
