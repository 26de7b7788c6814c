# SPDX-License-Identifier: Apache-2.0
"""Small wrappers over cuda.bindings.driver used by the offload worker."""

import threading

from cuda.bindings import driver


def check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


class EventPool:
    def __init__(self):
        self._free: list[driver.CUevent] = []
        self._lock = threading.Lock()

    def acquire(self) -> driver.CUevent:
        with self._lock:
            if self._free:
                return self._free.pop()
        return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))

    def release(self, event: driver.CUevent) -> None:
        with self._lock:
            self._free.append(event)
