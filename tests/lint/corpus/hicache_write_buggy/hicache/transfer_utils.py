from typing import Sequence

import torch


def page_starts(indices: torch.Tensor, page_size: int) -> list:
    # indices are host-side int64 tensors, one entry per token slot
    return indices[::page_size].tolist()


def transfer_kv_direct(
    src_layers: Sequence[torch.Tensor],
    dst_layers: Sequence[torch.Tensor],
    src_indices: torch.Tensor,
    dst_indices: torch.Tensor,
    page_size: int,
) -> None:
    assert len(src_layers) == len(dst_layers)
    assert src_indices.numel() == dst_indices.numel()
    src_pages = page_starts(src_indices, page_size)
    dst_pages = page_starts(dst_indices, page_size)
    for src, dst in zip(src_layers, dst_layers):
        for s, d in zip(src_pages, dst_pages):
            # expect: KVG001
            dst[d : d + page_size].copy_(src[s : s + page_size], non_blocking=True)
