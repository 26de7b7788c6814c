import logging
from dataclasses import dataclass, field

import cupy
import numpy as np

logger = logging.getLogger(__name__)

_pinned_pool: "cupy.cuda.PinnedMemoryPool | None" = None


def init_pinned_pool() -> "cupy.cuda.PinnedMemoryPool":
    global _pinned_pool
    if _pinned_pool is None:
        _pinned_pool = cupy.cuda.PinnedMemoryPool()
        cupy.cuda.set_pinned_memory_allocator(_pinned_pool.malloc)
        logger.debug("pinned memory pool installed")
    return _pinned_pool


def pinned_empty(shape: tuple[int, ...], dtype) -> np.ndarray:
    init_pinned_pool()
    count = int(np.prod(shape))
    mem = cupy.cuda.alloc_pinned_memory(count * np.dtype(dtype).itemsize)
    return np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


@dataclass
class StreamSet:
    device_id: int
    compute: cupy.cuda.Stream = field(init=False)
    offload: cupy.cuda.Stream = field(init=False)

    def __post_init__(self) -> None:
        with cupy.cuda.Device(self.device_id):
            self.compute = cupy.cuda.Stream(non_blocking=True)
            self.offload = cupy.cuda.Stream(non_blocking=True)
        logger.info(
            "device %d: compute stream %#x, offload stream %#x",
            self.device_id, self.compute.ptr, self.offload.ptr,
        )
