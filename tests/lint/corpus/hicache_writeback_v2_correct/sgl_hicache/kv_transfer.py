"""Page-granular KV copies between a device pool and a host pool.

The ``direct`` io backend moves one page at a time with plain tensor copies,
which keeps it usable on builds without the fused transfer kernels.
"""

from typing import List

import torch


def _page_starts(indices: torch.Tensor, page_size: int) -> List[int]:
    # indices are CPU int64 tensors, page aligned
    return indices[::page_size].tolist()


def transfer_kv_direct(
    src_layers: List[torch.Tensor],
    dst_layers: List[torch.Tensor],
    src_indices: torch.Tensor,
    dst_indices: torch.Tensor,
    page_size: int,
) -> None:
    src_starts = _page_starts(src_indices, page_size)
    dst_starts = _page_starts(dst_indices, page_size)
    for src, dst in zip(src_layers, dst_layers):
        for s, d in zip(src_starts, dst_starts):
            dst[d : d + page_size].copy_(src[s : s + page_size], non_blocking=True)
