from __future__ import annotations

from typing import Optional

import cupy
import numpy as np

from .config import CacheConfig


def _pinned_empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    count = int(np.prod(shape))
    mem = cupy.cuda.alloc_pinned_memory(count * dtype.itemsize)
    return np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


class BlockSwapper:
    """Moves whole KV blocks between the GPU pool and pinned CPU swap space."""

    def __init__(self, cfg: CacheConfig) -> None:
        self.cfg = cfg
        self.gpu_cache = cupy.zeros((cfg.num_gpu_blocks, *cfg.block_shape), dtype=cfg.dtype)
        self.cpu_cache = _pinned_empty((cfg.num_cpu_blocks, *cfg.block_shape), cfg.dtype)
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self._fence: Optional[cupy.cuda.Event] = None
        self._swap_done = cupy.cuda.Event(disable_timing=True)

    def fence(self, stream: Optional[cupy.cuda.Stream] = None) -> None:
        """Mark the end of the model work that may touch blocks being swapped."""
        stream = stream if stream is not None else cupy.cuda.get_current_stream()
        self._fence = stream.record(cupy.cuda.Event(disable_timing=True))

    def _after_fence(self) -> None:
        if self._fence is not None:
            self.stream.wait_event(self._fence)

    def swap_out(self, mapping: dict[int, int]) -> None:
        self._after_fence()
        for gpu_id, cpu_id in mapping.items():
            cupy.asnumpy(self.gpu_cache[gpu_id], stream=self.stream, out=self.cpu_cache[cpu_id], blocking=False)
        self._swap_done.record(self.stream)

    def swap_in(self, mapping: dict[int, int]) -> None:
        self._after_fence()
        for cpu_id, gpu_id in mapping.items():
            self.gpu_cache[gpu_id].set(self.cpu_cache[cpu_id], stream=self.stream)
        self._swap_done.record(self.stream)

    def hand_off(self, stream: cupy.cuda.Stream) -> None:
        stream.wait_event(self._swap_done)
