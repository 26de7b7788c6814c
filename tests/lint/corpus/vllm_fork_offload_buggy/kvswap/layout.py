# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import numpy as np
import torch

from .constants import OP_STORE


class BlockLayout:
    """Per-layer base pointers of the paged GPU cache and its CPU mirror."""

    def __init__(self, gpu_caches: list[torch.Tensor],
                 cpu_caches: list[torch.Tensor]):
        self.gpu_bases = np.array([t.data_ptr() for t in gpu_caches],
                                  dtype=np.uint64)
        self.cpu_bases = np.array([t.data_ptr() for t in cpu_caches],
                                  dtype=np.uint64)
        self.block_bytes = np.array(
            [t.stride(0) * t.element_size() for t in gpu_caches],
            dtype=np.uint64)

    def addresses(self, op: str, src_blocks: list[int],
                  dst_blocks: list[int]) -> tuple[np.ndarray, ...]:
        src_bases, dst_bases = ((self.gpu_bases, self.cpu_bases)
                                if op == OP_STORE else
                                (self.cpu_bases, self.gpu_bases))
        bpb = self.block_bytes[:, None]
        src = np.asarray(src_blocks, dtype=np.uint64)[None, :]
        dst = np.asarray(dst_blocks, dtype=np.uint64)[None, :]
        srcs = np.ascontiguousarray((src_bases[:, None] + src * bpb).ravel())
        dsts = np.ascontiguousarray((dst_bases[:, None] + dst * bpb).ravel())
        sizes = np.ascontiguousarray(
            np.broadcast_to(bpb, (bpb.shape[0], src.shape[1])).ravel())
        return dsts, srcs, sizes
