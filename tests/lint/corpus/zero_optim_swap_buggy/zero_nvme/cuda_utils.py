# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Thin wrappers over cuda-python driver calls used by the swappers."""

from typing import List, Sequence

import torch
from cuda.bindings import driver


def checkCudaErrors(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error {name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def create_stream() -> driver.CUstream:
    return checkCudaErrors(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def create_event() -> driver.CUevent:
    return checkCudaErrors(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))


def torch_current_stream() -> driver.CUstream:
    return driver.CUstream(torch.cuda.current_stream().cuda_stream)


def make_d2h_attributes(device_id: int, src_access_order, flags) -> driver.CUmemcpyAttributes:
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = src_access_order
    attr.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attr.srcLocHint.id = device_id
    attr.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attr.flags = flags
    return attr


def batch_copy_device_to_host(dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int],
                              attr: driver.CUmemcpyAttributes, stream: driver.CUstream) -> None:
    count = len(dsts)
    # expect: KVG002
    checkCudaErrors(driver.cuMemcpyBatchAsync(list(dsts), list(srcs), list(sizes), count, [attr], [0], 1, stream))


def copy_host_to_device(dst_tensors: List[torch.Tensor], host_buffers: List[torch.Tensor],
                        stream: driver.CUstream) -> None:
    for dst, src in zip(dst_tensors, host_buffers):
        nbytes = dst.numel() * dst.element_size()
        checkCudaErrors(driver.cuMemcpyHtoDAsync(dst.data_ptr(), src.data_ptr(), nbytes, stream))
