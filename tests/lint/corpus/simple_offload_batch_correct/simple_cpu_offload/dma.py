# SPDX-License-Identifier: Apache-2.0
import logging

from cuda.bindings import driver as drv

from simple_cpu_offload.constants import MIN_DRIVER_VERSION

logger = logging.getLogger(__name__)


def check_driver() -> None:
    err, version = drv.cuDriverGetVersion()
    if err != drv.CUresult.CUDA_SUCCESS or version < MIN_DRIVER_VERSION:
        raise RuntimeError(f"SimpleCPUOffload needs driver >= {MIN_DRIVER_VERSION}, got {version}")


def make_memcpy_attrs(src_order, src_loc, dst_loc, device_id: int) -> "drv.CUmemcpyAttributes":
    attrs = drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.srcLocHint.type = src_loc
    attrs.srcLocHint.id = device_id
    attrs.dstLocHint.type = dst_loc
    attrs.dstLocHint.id = device_id
    attrs.flags = drv.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def batch_memcpy(dsts: list[int], srcs: list[int], sizes: list[int],
                 attrs: "drv.CUmemcpyAttributes", stream_handle: int) -> None:
    if not sizes:
        return
    hstream = drv.CUstream(stream_handle)
    result = drv.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [attrs], [0], 1, hstream)
    if result[0] != drv.CUresult.CUDA_SUCCESS:
        logger.error("cuMemcpyBatchAsync failed on %d descriptors", len(sizes))
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {result}")
