import threading

import torch
from deepspeed.accelerator import get_accelerator


class SwapBufferPool:
    """Fixed set of pinned, AIO-aligned host buffers shared by readers and the writer thread."""

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        self.numel = numel
        self.dtype = dtype
        self._buffers = [get_accelerator().pin_memory(torch.empty(numel, dtype=dtype)) for _ in range(count)]
        self._free = list(range(count))
        self._cond = threading.Condition()

    def acquire(self, numel: int) -> tuple[int, torch.Tensor]:
        if numel > self.numel:
            raise ValueError(f"swap request of {numel} elements exceeds buffer size {self.numel}")
        with self._cond:
            while not self._free:
                self._cond.wait()
            idx = self._free.pop()
        return idx, self._buffers[idx]

    def release(self, idx: int) -> None:
        with self._cond:
            self._free.append(idx)
            self._cond.notify()

    @property
    def available(self) -> int:
        with self._cond:
            return len(self._free)
