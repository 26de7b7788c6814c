# SPDX-License-Identifier: Apache-2.0
import logging
import queue
import threading

from cuda.bindings import driver

from kvoffload.constants import MAX_INFLIGHT_JOBS, PINNED_ALIGNMENT

logger = logging.getLogger("kvoffload")


class CudaError(RuntimeError):
    pass


def check(result):
    err = result[0] if isinstance(result, tuple) else result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaError(name.decode() if name else str(err))
    if isinstance(result, tuple) and len(result) == 2:
        return result[1]
    return None


def create_stream():
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


class EventPool:
    def __init__(self, size=MAX_INFLIGHT_JOBS):
        self._free = queue.Queue()
        for _ in range(size):
            self._free.put(check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)))

    def get(self):
        return self._free.get()

    def put(self, event):
        self._free.put(event)


class PinnedHostPool:
    """First-fit allocator over one cuMemHostAlloc region."""

    def __init__(self, nbytes):
        self.base = check(driver.cuMemHostAlloc(nbytes, driver.CU_MEMHOSTALLOC_PORTABLE))
        self.nbytes = nbytes
        self._lock = threading.Lock()
        self._free = [(0, nbytes)]

    def alloc(self, size):
        size = (size + PINNED_ALIGNMENT - 1) // PINNED_ALIGNMENT * PINNED_ALIGNMENT
        with self._lock:
            for i, (off, length) in enumerate(self._free):
                if length >= size:
                    self._free[i] = (off + size, length - size)
                    return off, size
        raise MemoryError(f"pinned pool exhausted ({size} bytes)")

    def free(self, off, size):
        with self._lock:
            self._free.append((off, size))
            self._free.sort()
