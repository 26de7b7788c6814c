"""Batch DMA between GPU KV blocks and pinned CPU blocks via cuMemcpyBatchAsync."""

from typing import NamedTuple

import numpy as np
import torch
from cuda.bindings import driver

from simple_kv_offload.constants import (CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE,
                                         CU_MEMCPY_SRC_ACCESS_ORDER_ANY)


class BatchMemcpyParams(NamedTuple):
    src_bases: np.ndarray
    dst_bases: np.ndarray
    bytes_per_block: np.ndarray
    num_layers: int
    attrs: driver.CUmemcpyAttributes
    stream: driver.CUstream


def _check(err: driver.CUresult, what: str) -> None:
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed: {err}")


def build_params(src_caches: dict[str, torch.Tensor], dst_caches: dict[str, torch.Tensor],
                 stream: torch.cuda.Stream,
                 src_access_order: int = CU_MEMCPY_SRC_ACCESS_ORDER_ANY) -> BatchMemcpyParams:
    assert list(src_caches) == list(dst_caches)
    src_bases, dst_bases, bpb = [], [], []
    for src, dst in zip(src_caches.values(), dst_caches.values()):
        block_bytes = src.stride(0) * src.element_size()
        assert block_bytes == dst.stride(0) * dst.element_size()
        src_bases.append(src.data_ptr())
        dst_bases.append(dst.data_ptr())
        bpb.append(block_bytes)

    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder(src_access_order)
    attrs.flags = CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return BatchMemcpyParams(
        src_bases=np.asarray(src_bases, dtype=np.uint64),
        dst_bases=np.asarray(dst_bases, dtype=np.uint64),
        bytes_per_block=np.asarray(bpb, dtype=np.uint64),
        num_layers=len(bpb),
        attrs=attrs,
        stream=driver.CUstream(stream.cuda_stream),
    )


def copy_blocks(src_block_ids: list[int], dst_block_ids: list[int],
                params: BatchMemcpyParams) -> int:
    if not src_block_ids:
        return 0
    src_ids = np.asarray(src_block_ids, dtype=np.uint64)
    dst_ids = np.asarray(dst_block_ids, dtype=np.uint64)
    srcs = (params.src_bases[:, None] + src_ids[None, :] * params.bytes_per_block[:, None]).ravel()
    dsts = (params.dst_bases[:, None] + dst_ids[None, :] * params.bytes_per_block[:, None]).ravel()
    sizes = np.repeat(params.bytes_per_block, len(src_ids))
    count = len(sizes)
    # expect: KVG002
    err, _ = driver.cuMemcpyBatchAsync([driver.CUdeviceptr(int(d)) for d in dsts], [driver.CUdeviceptr(int(s)) for s in srcs], sizes.tolist(), count, [params.attrs], [0], 1, params.stream)
    _check(err, "cuMemcpyBatchAsync")
    return int(sizes.sum())
