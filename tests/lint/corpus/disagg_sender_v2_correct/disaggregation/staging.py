from typing import Sequence

import cupy
import cupyx
import numpy as np


def allocate_staging(num_blocks: int, block_nbytes: int) -> np.ndarray:
    """Pinned host buffer for one request's blocks."""
    return cupyx.empty_pinned((num_blocks, block_nbytes), dtype=np.uint8)


def stage_blocks(
    kv_pool: cupy.ndarray,
    block_ids: Sequence[int],
    out: np.ndarray,
    stream: cupy.cuda.Stream,
) -> None:
    """Enqueue device->host copies of `block_ids` rows of `kv_pool` into `out` on `stream`."""
    for i, block_id in enumerate(block_ids):
        kv_pool[block_id].get(stream=stream, out=out[i], blocking=False)
