"""Thin wrappers over cuda-python's driver bindings used by the stager."""
from __future__ import annotations

from cuda.bindings import driver

# Staged tensors are model/optimizer state produced by the training stream.
STAGING_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
STAGING_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_DEFAULT


class CudaDriverError(RuntimeError):
    pass


def check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(name.decode() if isinstance(name, bytes) else str(name))
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def new_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def new_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
