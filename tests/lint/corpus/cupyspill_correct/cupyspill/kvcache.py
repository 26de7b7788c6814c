# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Sequence

# Third Party
import cupy


class PagedKVCache:
    """KV blocks laid out as [num_blocks, 2, num_layers, block_size, hidden]."""

    def __init__(self, num_blocks: int, num_layers: int, block_size: int, hidden: int,
                 dtype=cupy.float16):
        self.compute_stream = cupy.cuda.Stream(non_blocking=True)
        with self.compute_stream:
            self.kv = cupy.zeros((num_blocks, 2, num_layers, block_size, hidden), dtype=dtype)

    def write_blocks(self, block_ids: Sequence[int], blocks: cupy.ndarray) -> None:
        with self.compute_stream:
            idx = cupy.asarray(block_ids, dtype=cupy.int64)
            self.kv[idx] = blocks
