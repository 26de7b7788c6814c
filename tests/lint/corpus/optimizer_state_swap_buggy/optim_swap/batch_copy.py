# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Gathers many small device tensors into pinned host buffers with one cuMemcpyBatchAsync call."""
from typing import List, Sequence

import torch
from cuda.bindings import driver
from deepspeed.utils import logger

from .constants import BATCH_COPY_FLAGS, BATCH_COPY_SRC_ACCESS_ORDER


def _check(result):
    err = result[0] if isinstance(result, tuple) else result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    return result[1:] if isinstance(result, tuple) and len(result) > 1 else None


def _device_to_host_attrs(device_index: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = BATCH_COPY_SRC_ACCESS_ORDER
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_index
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.dstLocHint.id = 0
    attrs.flags = BATCH_COPY_FLAGS
    return attrs


class BatchedDeviceToHostCopier:

    def __init__(self, device_index: int):
        self.device_index = device_index
        self.attrs = _device_to_host_attrs(device_index)

    def gather(self, srcs: Sequence[torch.Tensor], dsts: Sequence[torch.Tensor], stream_handle: int) -> int:
        src_ptrs: List[int] = []
        dst_ptrs: List[int] = []
        sizes: List[int] = []
        for src, dst in zip(srcs, dsts):
            assert src.is_cuda and dst.is_pinned() and src.numel() <= dst.numel()
            src_ptrs.append(src.data_ptr())
            dst_ptrs.append(dst.data_ptr())
            sizes.append(src.numel() * src.element_size())
        count = len(sizes)
        if count == 0:
            return 0
        stream = driver.CUstream(stream_handle)
        # expect: KVG002
        _check(driver.cuMemcpyBatchAsync(dst_ptrs, src_ptrs, sizes, count, [self.attrs], [0], 1, stream))
        logger.debug(f"batched {count} device-to-host copies, {sum(sizes)} bytes")
        return sum(sizes)

    def wait(self, stream_handle: int) -> None:
        _check(driver.cuStreamSynchronize(driver.CUstream(stream_handle)))
