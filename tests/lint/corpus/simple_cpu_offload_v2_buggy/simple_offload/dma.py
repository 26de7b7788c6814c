# SPDX-License-Identifier: Apache-2.0
"""Batched block copies through cuMemcpyBatchAsync (cuda-python bindings)."""

import numpy as np
import torch
from cuda.bindings import driver

from vllm.logger import init_logger

logger = init_logger(__name__)


class BatchCopier:
    """Copies whole blocks between two lists of per-layer caches.

    Every cache tensor is laid out as ``[num_blocks, ...]`` so that one block
    is a contiguous row.
    """

    def __init__(
        self,
        src_caches: list[torch.Tensor],
        dst_caches: list[torch.Tensor],
        stream: torch.cuda.Stream,
        src_access_order: int,
    ):
        assert len(src_caches) == len(dst_caches) > 0
        self._src_bases = np.array([t.data_ptr() for t in src_caches], dtype=np.uint64)
        self._dst_bases = np.array([t.data_ptr() for t in dst_caches], dtype=np.uint64)
        self._src_strides = np.array(
            [t.stride(0) * t.element_size() for t in src_caches], dtype=np.uint64
        )
        self._dst_strides = np.array(
            [t.stride(0) * t.element_size() for t in dst_caches], dtype=np.uint64
        )
        self._block_bytes = np.array([t[0].nbytes for t in src_caches], dtype=np.uint64)
        self._stream = driver.CUstream(stream.cuda_stream)

        attr = driver.CUmemcpyAttributes()
        attr.srcAccessOrder = driver.CUmemcpySrcAccessOrder(src_access_order)
        attr.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
        self._attrs = [attr]

    def _descriptors(self, src_ids: list[int], dst_ids: list[int]):
        src_ids_np = np.asarray(src_ids, dtype=np.uint64)
        dst_ids_np = np.asarray(dst_ids, dtype=np.uint64)
        srcs = self._src_bases[:, None] + src_ids_np[None, :] * self._src_strides[:, None]
        dsts = self._dst_bases[:, None] + dst_ids_np[None, :] * self._dst_strides[:, None]
        sizes = np.repeat(self._block_bytes, len(src_ids))
        return srcs.ravel(), dsts.ravel(), sizes

    def copy(self, src_ids: list[int], dst_ids: list[int]) -> int:
        assert len(src_ids) == len(dst_ids)
        if not src_ids:
            return 0
        srcs, dsts, sizes = self._descriptors(src_ids, dst_ids)
        # expect: KVG002
        err, *_ = driver.cuMemcpyBatchAsync(
            [driver.CUdeviceptr(int(p)) for p in dsts],
            [driver.CUdeviceptr(int(p)) for p in srcs],
            sizes.tolist(),
            len(sizes),
            self._attrs,
            [0],
            1,
            self._stream,
        )
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuMemcpyBatchAsync failed: {err}")
        return int(sizes.sum())
