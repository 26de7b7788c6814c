from typing import Sequence

import cupy
import numpy as np


def stage_blocks_to_host(
    gpu_layers: Sequence[cupy.ndarray],
    block_ids: Sequence[int],
    out: np.ndarray,
    stream: cupy.cuda.Stream,
) -> None:
    # gpu_layers[i] has shape (num_blocks, 2, block_size, num_kv_heads, head_size)
    for li, layer in enumerate(gpu_layers):
        for j, block_id in enumerate(block_ids):
            layer[block_id].get(stream=stream, out=out[li, j], blocking=False)
