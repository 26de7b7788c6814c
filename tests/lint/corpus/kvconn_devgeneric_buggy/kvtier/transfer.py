# SPDX-License-Identifier: Apache-2.0
import logging
from collections.abc import Sequence

import torch
from cuda.bindings import runtime as cudart

from .constants import SRC_ACCESS_ORDER, Direction

logger = logging.getLogger(__name__)


def _make_attrs(order: int) -> cudart.cudaMemcpyAttributes:
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = cudart.cudaMemcpySrcAccessOrder(order)
    return attrs


def _check(result, what: str) -> None:
    err = result[0] if isinstance(result, tuple) else result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"{what} failed: {err}")


class BatchTransfer:
    def __init__(self, gpu_caches: Sequence[torch.Tensor],
                 cpu_caches: Sequence[torch.Tensor]) -> None:
        self.gpu_bases = [t.data_ptr() for t in gpu_caches]
        self.cpu_bases = [t.data_ptr() for t in cpu_caches]
        self.block_bytes = [t.stride(0) * t.element_size() for t in gpu_caches]
        self._attrs = {d: _make_attrs(SRC_ACCESS_ORDER[d]) for d in Direction}

    def _plan(self, src_bases, dst_bases, src_ids, dst_ids):
        srcs, dsts, sizes = [], [], []
        for sb, db, nbytes in zip(src_bases, dst_bases, self.block_bytes):
            for s, d in zip(src_ids, dst_ids):
                srcs.append(sb + s * nbytes)
                dsts.append(db + d * nbytes)
                sizes.append(nbytes)
        return srcs, dsts, sizes

    def store(self, gpu_ids: Sequence[int], cpu_ids: Sequence[int], stream: int) -> int:
        srcs, dsts, sizes = self._plan(self.gpu_bases, self.cpu_bases, gpu_ids, cpu_ids)
        # expect: KVG002
        result = cudart.cudaMemcpyBatchAsync(
            dsts, srcs, sizes, len(sizes),
            [self._attrs[Direction.GPU_TO_CPU]], [0], 1, stream)
        _check(result, "cudaMemcpyBatchAsync(store)")
        return sum(sizes)

    def load(self, cpu_ids: Sequence[int], gpu_ids: Sequence[int], stream: int) -> int:
        srcs, dsts, sizes = self._plan(self.cpu_bases, self.gpu_bases, cpu_ids, gpu_ids)
        # expect: KVG004
        result = cudart.cudaMemcpyBatchAsync(
            dsts, srcs, sizes, len(sizes),
            [self._attrs[Direction.CPU_TO_GPU]], [0], 1, stream)
        _check(result, "cudaMemcpyBatchAsync(load)")
        return sum(sizes)
