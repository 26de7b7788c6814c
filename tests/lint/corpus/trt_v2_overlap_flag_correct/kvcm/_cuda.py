"""Thin helpers over cuda-python's driver bindings: error unwrapping, cached events, pinned
host memory and device pools."""

from enum import IntEnum
from typing import Iterable, NamedTuple

import cuda.bindings.driver as drv


class CacheTier(IntEnum):
    GPU_MEM = 0
    HOST_MEM = 1


class CopyTask(NamedTuple):
    dst: int
    src: int


def _unwrap(ret):
    err = ret[0] if isinstance(ret, tuple) else ret
    if err != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {err}")
    if isinstance(ret, tuple):
        return ret[1] if len(ret) == 2 else ret[1:]
    return None


class CachedCudaEvent:
    """An event recorded on ``stream`` when constructed."""

    def __init__(self, stream):
        self.handle = _unwrap(drv.cuEventCreate(drv.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        _unwrap(drv.cuEventRecord(self.handle, stream))

    def query_complete(self) -> bool:
        (err,) = drv.cuEventQuery(self.handle)
        return err == drv.CUresult.CUDA_SUCCESS

    def synchronize(self):
        _unwrap(drv.cuEventSynchronize(self.handle))


def stream_wait_events(stream, events: Iterable[CachedCudaEvent]):
    for event in events:
        _unwrap(drv.cuStreamWaitEvent(stream, event.handle, 0))


class DevicePool:
    def __init__(self, num_pages, page_bytes):
        self.page_bytes = page_bytes
        self.base = _unwrap(drv.cuMemAlloc(num_pages * page_bytes))

    def page_address(self, page):
        return int(self.base) + page * self.page_bytes


class HostPool:
    def __init__(self, num_pages, page_bytes):
        self.page_bytes = page_bytes
        self.base = _unwrap(drv.cuMemHostAlloc(num_pages * page_bytes, 0))

    def page_address(self, page):
        return int(self.base) + page * self.page_bytes
