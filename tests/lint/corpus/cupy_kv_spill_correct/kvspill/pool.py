import collections
import queue
import threading

import cupy
import numpy

from .config import SpillConfig
from .constants import KV_DTYPE


class DeviceBlockPool:
    """Fixed set of KV blocks living in one device allocation."""

    def __init__(self, cfg: SpillConfig):
        with cupy.cuda.Device(cfg.device_id):
            self.kv = cupy.zeros((cfg.num_device_blocks, cfg.block_elems), dtype=KV_DTYPE)
        self._free = collections.deque(range(cfg.num_device_blocks))
        self._lock = threading.Lock()

    def allocate(self) -> int:
        with self._lock:
            if not self._free:
                raise RuntimeError("KV block pool exhausted")
            return self._free.popleft()

    def release(self, block_id: int) -> None:
        with self._lock:
            self._free.append(block_id)


class PinnedStagingRing:
    """Page-locked bounce buffers, one block each."""

    def __init__(self, cfg: SpillConfig):
        nbytes = cfg.block_elems * numpy.dtype(KV_DTYPE).itemsize
        self._free: "queue.Queue[numpy.ndarray]" = queue.Queue()
        for _ in range(cfg.staging_slots):
            mem = cupy.cuda.alloc_pinned_memory(nbytes)
            self._free.put(numpy.frombuffer(mem, KV_DTYPE, cfg.block_elems))

    def acquire(self) -> numpy.ndarray:
        return self._free.get()

    def release(self, buf: numpy.ndarray) -> None:
        self._free.put(buf)


def make_transfer_streams(device_id: int) -> tuple[cupy.cuda.Stream, cupy.cuda.Stream]:
    with cupy.cuda.Device(device_id):
        return cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
