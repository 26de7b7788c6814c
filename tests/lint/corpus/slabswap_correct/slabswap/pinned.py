import threading
from typing import List, Tuple

import cupy
import numpy


class HostSlabPool:
    """Fixed number of page-locked host slabs carved from one pinned allocation."""

    def __init__(self, capacity: int, shape: Tuple[int, ...], dtype) -> None:
        per_slab = int(numpy.prod(shape))
        nbytes = per_slab * numpy.dtype(dtype).itemsize * capacity
        self._mem = cupy.cuda.alloc_pinned_memory(nbytes)
        flat = numpy.frombuffer(self._mem, dtype, per_slab * capacity)
        self._views: List[numpy.ndarray] = [
            flat[i * per_slab:(i + 1) * per_slab].reshape(shape) for i in range(capacity)
        ]
        self._free = list(range(capacity))
        self._lock = threading.Lock()

    def acquire(self) -> Tuple[int, numpy.ndarray]:
        with self._lock:
            if not self._free:
                raise MemoryError("host slab pool exhausted")
            idx = self._free.pop()
        return idx, self._views[idx]

    def release(self, idx: int) -> None:
        with self._lock:
            self._free.append(idx)
