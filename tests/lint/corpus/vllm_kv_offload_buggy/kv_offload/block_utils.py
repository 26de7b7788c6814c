# SPDX-License-Identifier: Apache-2.0
import numpy as np


def expand_block_ids(block_ids: np.ndarray, block_size_factor: int) -> np.ndarray:
    """Expand ids of a medium whose blocks are `block_size_factor` times
    larger than the kernel block size into kernel-block ids.

    e.g. [0, 3] with factor 2 -> [0, 1, 6, 7]
    """
    block_ids = block_ids.astype(np.int64, copy=False)
    if block_size_factor == 1:
        return block_ids
    offsets = np.arange(block_size_factor, dtype=np.int64)
    return (block_ids[:, None] * block_size_factor + offsets).reshape(-1)


def coalesce_block_runs(src_blocks: np.ndarray, dst_blocks: np.ndarray) -> np.ndarray:
    """Turn a (src, dst) block mapping into contiguous runs.

    Returns an int64 array of shape [num_runs, 3] with rows
    (src_start, dst_start, num_blocks), so each run is a single copy.
    """
    assert src_blocks.shape == dst_blocks.shape
    if src_blocks.size == 0:
        return np.empty((0, 3), dtype=np.int64)
    breaks = (np.diff(src_blocks) != 1) | (np.diff(dst_blocks) != 1)
    starts = np.concatenate(([0], np.flatnonzero(breaks) + 1))
    lengths = np.diff(np.append(starts, src_blocks.size))
    return np.stack((src_blocks[starts], dst_blocks[starts], lengths), axis=1)
