from typing import Sequence

import cupy
import numpy as np
import torch


def kv_pool_view(kv_pool: torch.Tensor) -> cupy.ndarray:
    """Zero-copy ``(num_blocks, block_bytes)`` byte view of the device pool."""
    num_blocks = kv_pool.shape[0]
    return cupy.asarray(kv_pool.view(torch.uint8).reshape(num_blocks, -1))


def gather_blocks_to_host(
    pool_view: cupy.ndarray,
    block_ids: Sequence[int],
    staging: np.ndarray,
    stream: cupy.cuda.Stream,
) -> int:
    for i, block_id in enumerate(block_ids):
        # expect: KVG001
        pool_view[block_id].get(stream=stream, out=staging[i], blocking=False)
    return len(block_ids)
