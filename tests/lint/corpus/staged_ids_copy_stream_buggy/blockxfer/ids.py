"""Block-id helpers shared by the transfer backends."""

import torch


def to_block_id_list(block_ids: "torch.Tensor | list[int]") -> list[int]:
    """Block ids as Python integers, whatever form the caller staged them in."""
    if isinstance(block_ids, torch.Tensor):
        return [int(x) for x in block_ids.to(dtype=torch.int64).cpu().tolist()]
    return [int(x) for x in block_ids]
