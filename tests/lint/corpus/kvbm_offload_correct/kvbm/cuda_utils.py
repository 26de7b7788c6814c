"""Thin wrappers over cuda-python driver calls."""

from __future__ import annotations

from cuda.bindings import driver


class CudaError(RuntimeError):
    pass


def check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaError(f"CUDA driver call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))


def record_ready(event: driver.CUevent, stream: driver.CUstream) -> None:
    check(driver.cuEventRecord(event, stream))


def stream_wait(stream: driver.CUstream, event: driver.CUevent) -> None:
    check(driver.cuStreamWaitEvent(stream, event, 0))


def pinned_alloc(nbytes: int) -> int:
    return check(driver.cuMemHostAlloc(nbytes, driver.CU_MEMHOSTALLOC_PORTABLE))
