"""Thin helpers over cuda-python's driver bindings."""

from typing import Iterable

import cuda.bindings.driver as drv


def _unwrap(ret):
    err, *rest = ret if isinstance(ret, tuple) else (ret,)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream() -> drv.CUstream:
    return _unwrap(drv.cuStreamCreate(drv.CUstream_flags.CU_STREAM_NON_BLOCKING))


class CachedCudaEvent:
    """An event recorded on ``stream`` when it is made."""

    def __init__(self, stream: drv.CUstream):
        self.handle = _unwrap(drv.cuEventCreate(drv.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        _unwrap(drv.cuEventRecord(self.handle, stream))

    def query_ready(self) -> bool:
        (err,) = drv.cuEventQuery(self.handle)
        return err == drv.CUresult.CUDA_SUCCESS

    def synchronize(self) -> None:
        _unwrap(drv.cuEventSynchronize(self.handle))


def stream_wait_events(stream: drv.CUstream, events: Iterable[CachedCudaEvent]) -> None:
    for event in events:
        _unwrap(drv.cuStreamWaitEvent(stream, event.handle, 0))


class DeviceMem:
    def __init__(self, size: int):
        self.size = size
        self.address = int(_unwrap(drv.cuMemAlloc(size)))


class HostMem:
    def __init__(self, size: int):
        self.size = size
        self.address = int(_unwrap(drv.cuMemHostAlloc(size, 0)))
