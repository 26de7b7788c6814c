"""Batched device-to-host copies through the CUDA driver API (cuda-python)."""
from __future__ import annotations

from typing import Sequence

import torch
from cuda.bindings import driver


def _check(result) -> None:
    err = result[0] if isinstance(result, tuple) else result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error: {err}")


def _attrs_for_gpu_source(device_index: int) -> driver.CUmemcpyAttributes:
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    attr.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attr.srcLocHint.id = device_index
    attr.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attr


def batch_d2h(dsts: Sequence[torch.Tensor], srcs: Sequence[torch.Tensor], stream) -> None:
    """Copy every ``srcs[i]`` (device) into ``dsts[i]`` (pinned host) as one batch on ``stream``."""
    if not srcs:
        return
    dst_ptrs = [driver.CUdeviceptr(t.data_ptr()) for t in dsts]
    src_ptrs = [driver.CUdeviceptr(t.data_ptr()) for t in srcs]
    sizes = [t.numel() * t.element_size() for t in srcs]
    attr = _attrs_for_gpu_source(srcs[0].device.index or 0)
    hstream = driver.CUstream(stream.cuda_stream)
    _check(driver.cuMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, len(sizes), [attr], [0], 1, hstream))
