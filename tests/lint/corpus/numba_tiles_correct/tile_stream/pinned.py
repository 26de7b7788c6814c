import logging
from typing import List, Tuple

import numpy as np
from numba import cuda

logger = logging.getLogger(__name__)


class PinnedTileStore:
    """Row tiles of a host weight matrix, each in its own page-locked array."""

    def __init__(self, weight: np.ndarray, tile_rows: int):
        self.num_rows, self.cols = weight.shape
        self.dtype = weight.dtype
        self.tiles: List[Tuple[int, np.ndarray]] = []
        for row0 in range(0, self.num_rows, tile_rows):
            rows = min(tile_rows, self.num_rows - row0)
            buf = cuda.pinned_array((rows, self.cols), dtype=self.dtype)
            buf[:] = weight[row0 : row0 + rows]
            self.tiles.append((row0, buf))
        logger.info("pinned %d tiles (%d x %d)", len(self.tiles), self.num_rows, self.cols)


def upload_tile(host_tile: np.ndarray, dev_slot, stream) -> int:
    rows = host_tile.shape[0]
    dev_slot[:rows].copy_to_device(host_tile, stream=stream)
    return rows
