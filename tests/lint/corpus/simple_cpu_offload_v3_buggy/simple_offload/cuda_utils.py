# SPDX-License-Identifier: Apache-2.0
"""Batched block copies through cuMemcpyBatchAsync."""

from typing import NamedTuple

import numpy as np
import torch
from cuda.bindings import driver as drv

from simple_offload.constants import MAX_DESCRIPTORS_PER_BATCH, SRC_ACCESS_ORDER_ANY


class BatchMemcpyParams(NamedTuple):
    src_bases: np.ndarray
    dst_bases: np.ndarray
    bytes_per_block: np.ndarray
    attrs: drv.CUmemcpyAttributes
    stream: drv.CUstream


def build_params(
    src_caches: dict[str, torch.Tensor],
    dst_caches: dict[str, torch.Tensor],
    stream: torch.cuda.Stream,
    src_access_order=SRC_ACCESS_ORDER_ANY,
) -> BatchMemcpyParams:
    assert list(src_caches) == list(dst_caches)
    src_bases, dst_bases, bpb = [], [], []
    for name in src_caches:
        src, dst = src_caches[name], dst_caches[name]
        assert src.stride(0) * src.element_size() == dst.stride(0) * dst.element_size()
        src_bases.append(src.data_ptr())
        dst_bases.append(dst.data_ptr())
        bpb.append(src.stride(0) * src.element_size())

    attrs = drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    return BatchMemcpyParams(
        src_bases=np.array(src_bases, dtype=np.uint64),
        dst_bases=np.array(dst_bases, dtype=np.uint64),
        bytes_per_block=np.array(bpb, dtype=np.uint64),
        attrs=attrs,
        stream=drv.CUstream(stream.cuda_stream),
    )


def copy_blocks(src_block_ids: list[int], dst_block_ids: list[int], params: BatchMemcpyParams) -> int:
    if not src_block_ids:
        return 0
    src = np.asarray(src_block_ids, dtype=np.uint64)
    dst = np.asarray(dst_block_ids, dtype=np.uint64)
    srcs = (params.src_bases[:, None] + src[None, :] * params.bytes_per_block[:, None]).ravel()
    dsts = (params.dst_bases[:, None] + dst[None, :] * params.bytes_per_block[:, None]).ravel()
    sizes = np.repeat(params.bytes_per_block, len(src))

    total = 0
    for begin in range(0, len(srcs), MAX_DESCRIPTORS_PER_BATCH):
        end = min(begin + MAX_DESCRIPTORS_PER_BATCH, len(srcs))
        count = end - begin
        # expect: KVG002
        (err, *_) = drv.cuMemcpyBatchAsync(
            dsts[begin:end].tolist(),
            srcs[begin:end].tolist(),
            sizes[begin:end].tolist(),
            count,
            [params.attrs],
            [0],
            1,
            params.stream,
        )
        if err != drv.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuMemcpyBatchAsync failed: {err}")
        total += int(sizes[begin:end].sum())
    return total
