import logging

import cupy
import numpy as np

logger = logging.getLogger(__name__)

_pool = cupy.cuda.PinnedMemoryPool()
cupy.cuda.set_pinned_memory_allocator(_pool.malloc)


class DeviceStreams:
    """Main stream plus one copy stream per direction."""

    def __init__(self, device_id: int = 0) -> None:
        self.device = cupy.cuda.Device(device_id)
        with self.device:
            self.main = cupy.cuda.Stream(non_blocking=True)
            self.h2d = cupy.cuda.Stream(non_blocking=True)
            self.d2h = cupy.cuda.Stream(non_blocking=True)

    def __repr__(self) -> str:
        return (f"DeviceStreams(dev={self.device.id}, main={self.main.ptr:#x}, "
                f"h2d={self.h2d.ptr:#x}, d2h={self.d2h.ptr:#x})")


def pinned_blocks(n: int, block_shape: tuple[int, ...], dtype) -> np.ndarray:
    shape = (n, *block_shape)
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    mem = cupy.cuda.alloc_pinned_memory(nbytes)
    arr = np.frombuffer(mem, dtype=dtype, count=int(np.prod(shape)))
    logger.debug("pinned %d blocks (%d MiB)", n, nbytes >> 20)
    return arr.reshape(shape)
