from typing import Sequence

import numpy as np
from cuda.bindings import driver

from kv_export import consts


def export_attributes() -> driver.CUmemcpyAttributes:
    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = consts.EXPORT_SRC_ACCESS_ORDER
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def copy_blocks(src_bases: np.ndarray, dst_bases: np.ndarray, block_bytes: np.ndarray,
                src_ids: Sequence[int], dst_ids: Sequence[int], attrs: driver.CUmemcpyAttributes,
                stream_handle: int) -> None:
    src_ids = np.asarray(src_ids, dtype=np.uint64)
    dst_ids = np.asarray(dst_ids, dtype=np.uint64)
    srcs = (src_bases[:, None] + src_ids[None, :] * block_bytes[:, None]).ravel()
    dsts = (dst_bases[:, None] + dst_ids[None, :] * block_bytes[:, None]).ravel()
    sizes = np.repeat(block_bytes, len(src_ids))
    step = consts.MAX_COPIES_PER_CALL
    for off in range(0, len(sizes), step):
        n = min(step, len(sizes) - off)
        # expect: KVG001, KVG002
        result = driver.cuMemcpyBatchAsync(dsts[off:off + n].tolist(), srcs[off:off + n].tolist(),
                                           sizes[off:off + n].tolist(), n, [attrs], [0], 1,
                                           stream_handle)
        if result[0] != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuMemcpyBatchAsync failed: {result[0]}")
