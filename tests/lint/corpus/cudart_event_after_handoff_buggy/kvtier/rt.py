"""cuda-python runtime helpers: checked calls and a small pool of timing-free events."""

import threading
from typing import List

from cuda.bindings import runtime as cudart


def ck(result):
    err, *rest = result
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise RuntimeError(f"CUDA runtime error {err}: {msg}")
    if not rest:
        return None
    return rest[0]


class EventPool:
    def __init__(self, initial: int = 16):
        self._lock = threading.Lock()
        self._free: List = [self._create() for _ in range(initial)]

    @staticmethod
    def _create():
        return ck(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))

    def acquire(self):
        with self._lock:
            if self._free:
                return self._free.pop()
        return self._create()

    def release(self, *events) -> None:
        with self._lock:
            self._free.extend(events)
