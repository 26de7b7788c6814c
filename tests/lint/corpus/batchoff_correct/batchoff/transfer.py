# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass
from typing import Dict, Sequence

import numpy as np
import torch
from cuda.bindings import driver

from batchoff import cuda_rt
from batchoff._cuconst import (CUDA_MEMCPY_DEVICE_TO_HOST, CUDA_MEMCPY_HOST_TO_DEVICE, LOCATION, SRC_ORDER,
                               Direction)


def make_attrs(direction: Direction, device_index: int) -> driver.CUmemcpyAttributes:
    src_type, dst_type = LOCATION[direction]
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = SRC_ORDER[direction]
    attrs.srcLocHint.type = src_type
    attrs.srcLocHint.id = device_index
    attrs.dstLocHint.type = dst_type
    attrs.dstLocHint.id = device_index
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


@dataclass
class BatchPlan:
    src_bases: np.ndarray
    dst_bases: np.ndarray
    block_bytes: np.ndarray
    direction: Direction
    stream: driver.CUstream
    attrs: driver.CUmemcpyAttributes

    @classmethod
    def build(cls, src: Dict[str, torch.Tensor], dst: Dict[str, torch.Tensor], direction: Direction,
              stream: driver.CUstream, device_index: int) -> "BatchPlan":
        assert list(src) == list(dst), "layer names differ between caches"
        bpb = [t.stride(0) * t.element_size() for t in src.values()]
        return cls(
            src_bases=np.array([t.data_ptr() for t in src.values()], dtype=np.uint64),
            dst_bases=np.array([t.data_ptr() for t in dst.values()], dtype=np.uint64),
            block_bytes=np.array(bpb, dtype=np.uint64),
            direction=direction,
            stream=stream,
            attrs=make_attrs(direction, device_index),
        )


def submit(plan: BatchPlan, src_ids: Sequence[int], dst_ids: Sequence[int]) -> int:
    dsts, srcs, sizes = [], [], []
    for layer in range(len(plan.src_bases)):
        bpb = int(plan.block_bytes[layer])
        for s, d in zip(src_ids, dst_ids):
            srcs.append(int(plan.src_bases[layer]) + s * bpb)
            dsts.append(int(plan.dst_bases[layer]) + d * bpb)
            sizes.append(bpb)
    if not sizes:
        return 0
    if not cuda_rt.has_batch_memcpy():
        kind = CUDA_MEMCPY_DEVICE_TO_HOST if plan.direction is Direction.STORE else CUDA_MEMCPY_HOST_TO_DEVICE
        for dst, src, nbytes in zip(dsts, srcs, sizes):
            cuda_rt.memcpy_async(dst, src, nbytes, kind, plan.stream)
        return len(sizes)
    result = driver.cuMemcpyBatchAsync(
        [driver.CUdeviceptr(p) for p in dsts],
        [driver.CUdeviceptr(p) for p in srcs],
        sizes,
        len(sizes),
        [plan.attrs],
        [0],
        1,
        plan.stream,
    )
    cuda_rt.check(result[0] if isinstance(result, tuple) else result, "cuMemcpyBatchAsync")
    return len(sizes)
