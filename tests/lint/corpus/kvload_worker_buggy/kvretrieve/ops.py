# SPDX-License-Identifier: Apache-2.0
# Third Party
import torch


def load_blocks(
    kv_layer: torch.Tensor, block_lo: int, block_hi: int, src: torch.Tensor
) -> None:
    """Copy a pinned chunk laid out as [2, n_blocks, block_size, hidden] into
    blocks [block_lo, block_hi) of one paged layer."""
    dst = kv_layer[:, block_lo:block_hi]
    # expect: KVG004
    dst.copy_(src.view_as(dst), non_blocking=True)
