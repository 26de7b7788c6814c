from __future__ import annotations

import threading

import torch


class PinnedBufferPool:
    """Fixed number of equally sized pinned staging slots."""

    def __init__(self, num_slots: int, slot_bytes: int) -> None:
        self.slot_bytes = slot_bytes
        self._free = [torch.empty(slot_bytes, dtype=torch.uint8, pin_memory=True)
                      for _ in range(num_slots)]
        self._cond = threading.Condition()

    def acquire(self, nbytes: int) -> torch.Tensor:
        if nbytes > self.slot_bytes:
            raise ValueError(f"chunk of {nbytes} bytes exceeds slot size {self.slot_bytes}")
        with self._cond:
            self._cond.wait_for(lambda: bool(self._free))
            return self._free.pop()

    def release(self, buf: torch.Tensor) -> None:
        with self._cond:
            self._free.append(buf)
            self._cond.notify()
