# SPDX-License-Identifier: Apache-2.0
from enum import IntEnum
from typing import NamedTuple

import cuda.bindings.driver as drv

# Worker threads issuing host <-> device block copies.
NUM_COPY_WORKERS = 2
# Event objects kept around for reuse between copy tasks.
EVENT_POOL_SIZE = 64


class CacheTier(IntEnum):
    GPU_MEM = 0
    HOST_MEM = 1


class CopyTask(NamedTuple):
    dst: int
    src: int


def _unwrap(ret):
    if isinstance(ret, tuple):
        err, *rest = ret
    else:
        err, rest = ret, []
    if err != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)
