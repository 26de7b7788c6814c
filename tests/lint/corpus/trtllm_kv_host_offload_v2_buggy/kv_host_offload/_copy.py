# SPDX-License-Identifier: Apache-2.0
from typing import Sequence

import cuda.bindings.driver as drv

from ._common import CopyTask, _unwrap


def copy_gpu_to_host(tasks: Sequence[CopyTask], num_bytes: int, stream: drv.CUstream) -> None:
    for dst, src in tasks:
        # expect: KVG001
        _unwrap(drv.cuMemcpyDtoHAsync(dst, drv.CUdeviceptr(src), num_bytes, stream))


def copy_host_to_gpu(tasks: Sequence[CopyTask], num_bytes: int, stream: drv.CUstream) -> None:
    for dst, src in tasks:
        # expect: KVG004
        _unwrap(drv.cuMemcpyHtoDAsync(drv.CUdeviceptr(dst), src, num_bytes, stream))
