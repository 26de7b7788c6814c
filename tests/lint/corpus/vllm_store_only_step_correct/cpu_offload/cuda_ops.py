"""Block copies with the driver's cuMemcpyBatchAsync (cuda-python, CUDA >= 12.8): one call
copies every (block, layer) pair of a transfer."""

from typing import Dict, List, NamedTuple

import numpy as np
import torch
from cuda.bindings import driver

STORE_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
# pinned host memory that no stream writes: the driver may read it whenever it likes
LOAD_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


class BatchParams(NamedTuple):
    src_bases: np.ndarray
    dst_bases: np.ndarray
    bytes_per_block: np.ndarray
    attrs: driver.CUmemcpyAttributes
    stream_handle: int


def build_params(src: Dict[str, torch.Tensor], dst: Dict[str, torch.Tensor],
                 stream: torch.cuda.Stream, order) -> BatchParams:
    srcs, dsts = list(src.values()), list(dst.values())
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return BatchParams(
        src_bases=np.array([t.data_ptr() for t in srcs], dtype=np.uint64),
        dst_bases=np.array([t.data_ptr() for t in dsts], dtype=np.uint64),
        bytes_per_block=np.array([t.stride(0) * t.element_size() for t in srcs], dtype=np.uint64),
        attrs=attrs,
        stream_handle=stream.cuda_stream,
    )


def copy_blocks(src_blocks: List[int], dst_blocks: List[int], params: BatchParams) -> None:
    if not src_blocks:
        return
    s = np.asarray(src_blocks, dtype=np.uint64)
    d = np.asarray(dst_blocks, dtype=np.uint64)
    bpb = params.bytes_per_block[:, None]
    srcs = (params.src_bases[:, None] + s[None, :] * bpb).ravel()
    dsts = (params.dst_bases[:, None] + d[None, :] * bpb).ravel()
    sizes = np.repeat(params.bytes_per_block, len(src_blocks))
    count = len(sizes)
    err, *_ = driver.cuMemcpyBatchAsync(dsts.tolist(), srcs.tolist(), sizes.tolist(), count,
                                        [params.attrs], [0], 1, params.stream_handle)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuMemcpyBatchAsync failed: {err}")
