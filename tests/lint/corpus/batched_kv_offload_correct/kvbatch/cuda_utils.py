# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Any

# Third Party
from cuda.bindings import driver

# First Party
from kvbatch.constants import EVENT_FLAGS, HOST_ALLOC_FLAGS, STREAM_FLAGS


class CudaDriverError(RuntimeError):
    pass


def check(result: Any) -> Any:
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(f"{name.decode()} ({int(err)})")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(STREAM_FLAGS))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(EVENT_FLAGS))


def alloc_pinned(nbytes: int) -> int:
    return int(check(driver.cuMemHostAlloc(nbytes, HOST_ALLOC_FLAGS)))
