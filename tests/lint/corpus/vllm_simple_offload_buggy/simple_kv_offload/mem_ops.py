# SPDX-License-Identifier: Apache-2.0
"""Block-granular batch DMA between the GPU and CPU KV caches."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
from cuda.bindings import driver as drv

from .cuda_consts import (MEM_LOCATION_DEVICE, MEM_LOCATION_HOST,
                          MEMCPY_FLAG_PREFER_OVERLAP, SRC_ACCESS_ORDER_ANY)


class BatchMemcpyParams(NamedTuple):
    src_bases: np.ndarray  # [num_tensors] uint64
    dst_bases: np.ndarray  # [num_tensors] uint64
    bytes_per_block: np.ndarray  # [num_tensors] uint64
    attrs: drv.CUmemcpyAttributes
    stream: drv.CUstream


def make_attrs(src_access_order=SRC_ACCESS_ORDER_ANY,
               src_on_device: bool = True,
               device_id: int = 0) -> drv.CUmemcpyAttributes:
    attrs = drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    device_hint, host_hint = attrs.srcLocHint, attrs.dstLocHint
    if not src_on_device:
        device_hint, host_hint = host_hint, device_hint
    device_hint.type, device_hint.id = MEM_LOCATION_DEVICE, device_id
    host_hint.type, host_hint.id = MEM_LOCATION_HOST, 0
    attrs.flags = MEMCPY_FLAG_PREFER_OVERLAP
    return attrs


def build_params(src_caches: dict[str, torch.Tensor],
                 dst_caches: dict[str, torch.Tensor],
                 stream: torch.cuda.Stream,
                 src_access_order=SRC_ACCESS_ORDER_ANY) -> BatchMemcpyParams:
    assert list(src_caches) == list(dst_caches)
    srcs, dsts = list(src_caches.values()), list(dst_caches.values())
    bpb = [s.stride(0) * s.element_size() for s in srcs]
    device_id = next(t.device.index for t in srcs + dsts if t.is_cuda)
    return BatchMemcpyParams(
        src_bases=np.array([s.data_ptr() for s in srcs], dtype=np.uint64),
        dst_bases=np.array([d.data_ptr() for d in dsts], dtype=np.uint64),
        bytes_per_block=np.array(bpb, dtype=np.uint64),
        attrs=make_attrs(src_access_order, srcs[0].is_cuda, device_id),
        stream=drv.CUstream(stream.cuda_stream),
    )


def copy_blocks(src_block_ids: list[int], dst_block_ids: list[int],
                params: BatchMemcpyParams) -> None:
    if not src_block_ids:
        return
    src_ids = np.asarray(src_block_ids, dtype=np.uint64)
    dst_ids = np.asarray(dst_block_ids, dtype=np.uint64)
    bpb = params.bytes_per_block[:, None]
    src_all = (params.src_bases[:, None] + src_ids[None, :] * bpb).ravel()
    dst_all = (params.dst_bases[:, None] + dst_ids[None, :] * bpb).ravel()
    sizes = np.broadcast_to(bpb, (bpb.shape[0], src_ids.size)).ravel()
    count = int(src_all.size)
    # expect: KVG002
    result = drv.cuMemcpyBatchAsync(
        [drv.CUdeviceptr(int(p)) for p in dst_all],
        [drv.CUdeviceptr(int(p)) for p in src_all],
        [int(n) for n in sizes], count, [params.attrs], [0], 1,
        params.stream)
    if result[0] != drv.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {result}")
