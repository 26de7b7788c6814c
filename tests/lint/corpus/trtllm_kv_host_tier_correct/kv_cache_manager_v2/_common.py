import enum
from typing import NamedTuple

from cuda.bindings import driver as drv

MIN_BATCH_COPY_TASKS = 8
BATCH_COPY_MIN_DRIVER_VERSION = 12080


class CacheLevel(enum.IntEnum):
    GPU_MEMORY = 0
    HOST_MEMORY = 1


class CopyTask(NamedTuple):
    dst: int
    src: int


class CudaError(RuntimeError):
    pass


def _check(result):
    err = result[0]
    if err != drv.CUresult.CUDA_SUCCESS:
        _, name = drv.cuGetErrorName(err)
        raise CudaError(f"CUDA driver call failed: {name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]
