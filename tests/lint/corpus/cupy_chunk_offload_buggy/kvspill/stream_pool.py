import itertools
import threading

import cupy

from kvspill.constants import DEFAULT_NUM_COPY_STREAMS


class CopyStreamPool:
    """Round-robin pool of non-blocking streams reserved for device-to-host traffic."""

    def __init__(self, device_id=None, size=DEFAULT_NUM_COPY_STREAMS):
        with cupy.cuda.Device(device_id):
            self._streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(size)]
        self._cycle = itertools.cycle(range(size))
        self._lock = threading.Lock()

    def acquire(self):
        with self._lock:
            return self._streams[next(self._cycle)]

    def synchronize_all(self):
        for s in self._streams:
            s.synchronize()
