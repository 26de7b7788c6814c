"""Device -> host gradient copies issued as a single cuMemcpyBatchAsync."""
from __future__ import annotations

from typing import Sequence

import torch
from cuda.bindings import driver

from .constants import MAX_COPIES_PER_BATCH
from .cuda_utils import checkCudaErrors


def _d2h_attributes(device_ordinal: int) -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
    attrs.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attrs.srcLocHint.id = device_ordinal
    attrs.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attrs.dstLocHint.id = 0
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


class BatchedD2HCopy:
    def __init__(self, host_buffers: Sequence[torch.Tensor], device_ordinal: int) -> None:
        if any(not b.is_pinned() for b in host_buffers):
            raise ValueError("host buffers must be page-locked")
        self._dsts = [driver.CUdeviceptr(b.data_ptr()) for b in host_buffers]
        self._sizes = [b.numel() * b.element_size() for b in host_buffers]
        self._attrs = _d2h_attributes(device_ordinal)

    def launch(self, device_tensors: Sequence[torch.Tensor], stream: driver.CUstream) -> None:
        if len(device_tensors) != len(self._dsts):
            raise ValueError(f"expected {len(self._dsts)} tensors, got {len(device_tensors)}")
        srcs = []
        for t, size in zip(device_tensors, self._sizes):
            if not t.is_contiguous() or t.numel() * t.element_size() != size:
                raise ValueError("gradient layout does not match its host buffer")
            srcs.append(driver.CUdeviceptr(t.data_ptr()))

        for start in range(0, len(srcs), MAX_COPIES_PER_BATCH):
            end = min(start + MAX_COPIES_PER_BATCH, len(srcs))
            checkCudaErrors(
                # expect: KVG002
                driver.cuMemcpyBatchAsync(
                    self._dsts[start:end],
                    srcs[start:end],
                    self._sizes[start:end],
                    end - start,
                    [self._attrs],
                    [0],
                    1,
                    stream,
                )
            )
