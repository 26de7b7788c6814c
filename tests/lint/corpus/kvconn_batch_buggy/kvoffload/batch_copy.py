# SPDX-License-Identifier: Apache-2.0
import logging
from collections.abc import Sequence

import torch
from cuda.bindings import driver as drv

logger = logging.getLogger(__name__)

SrcAccessOrder = drv.CUmemcpySrcAccessOrder


def make_copy_attrs(
    src_access_order: SrcAccessOrder = SrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
) -> drv.CUmemcpyAttributes:
    attrs = drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_access_order
    attrs.flags = drv.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


class BlockCopier:
    """Copies whole KV blocks between two lists of per-layer tensors."""

    def __init__(self, src: Sequence[torch.Tensor], dst: Sequence[torch.Tensor],
                 attrs: drv.CUmemcpyAttributes) -> None:
        assert len(src) == len(dst)
        self.src_bases = [t.data_ptr() for t in src]
        self.dst_bases = [t.data_ptr() for t in dst]
        self.block_bytes = [t.stride(0) * t.element_size() for t in src]
        self.attrs = attrs

    def copy(self, src_ids: Sequence[int], dst_ids: Sequence[int],
             stream: torch.cuda.Stream) -> int:
        srcs: list[int] = []
        dsts: list[int] = []
        sizes: list[int] = []
        for src_base, dst_base, nbytes in zip(
                self.src_bases, self.dst_bases, self.block_bytes):
            for s, d in zip(src_ids, dst_ids):
                srcs.append(src_base + s * nbytes)
                dsts.append(dst_base + d * nbytes)
                sizes.append(nbytes)
        if not sizes:
            return 0
        # expect: KVG002
        result = drv.cuMemcpyBatchAsync(
            dsts, srcs, sizes, len(sizes), [self.attrs], [0], 1,
            drv.CUstream(stream.cuda_stream))
        if result[0] != drv.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuMemcpyBatchAsync failed: {result}")
        return sum(sizes)
