# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from typing import List, Sequence

import torch
from cuda.bindings import driver

from .constants import SWAP_OUT_FLAGS, SWAP_OUT_SRC_ORDER
from .driver_utils import check_cuda, device_location, host_location


def batch_device_to_host(host_buffers: Sequence[torch.Tensor], device_tensors: Sequence[torch.Tensor],
                         device_ordinal: int, stream: driver.CUstream) -> None:
    """Gathers several device partitions into pinned host buffers with one batched copy."""
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = SWAP_OUT_SRC_ORDER
    attrs.srcLocHint = device_location(device_ordinal)
    attrs.dstLocHint = host_location()
    attrs.flags = SWAP_OUT_FLAGS

    dsts: List[driver.CUdeviceptr] = []
    srcs: List[driver.CUdeviceptr] = []
    sizes: List[int] = []
    for host, dev in zip(host_buffers, device_tensors):
        nbytes = dev.numel() * dev.element_size()
        assert host.numel() * host.element_size() >= nbytes
        dsts.append(driver.CUdeviceptr(host.data_ptr()))
        srcs.append(driver.CUdeviceptr(dev.data_ptr()))
        sizes.append(nbytes)
    check_cuda(driver.cuMemcpyBatchAsync(dsts, srcs, sizes, len(sizes), [attrs], [0], 1, stream))
