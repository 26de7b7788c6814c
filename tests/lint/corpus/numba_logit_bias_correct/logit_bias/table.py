import numpy as np
from numba import cuda

from .constants import BIAS_DTYPE, TABLE_ROWS


class BiasTable:

    def __init__(self, vocab_size: int, rows: int = TABLE_ROWS):
        self.rows = rows
        self.vocab_size = vocab_size
        self.device = cuda.device_array((rows, vocab_size), dtype=BIAS_DTYPE)
        self.staging = cuda.pinned_array((rows, vocab_size), dtype=BIAS_DTYPE)
        self.staging[:] = 0
        self._dirty_lo = rows
        self._dirty_hi = 0

    def stage_row(self, row: int, token_ids: np.ndarray, values: np.ndarray) -> None:
        self.staging[row, :] = 0
        self.staging[row, token_ids] = values
        self._dirty_lo = min(self._dirty_lo, row)
        self._dirty_hi = max(self._dirty_hi, row + 1)

    def take_dirty(self) -> tuple[int, int]:
        lo, hi = self._dirty_lo, self._dirty_hi
        self._dirty_lo, self._dirty_hi = self.rows, 0
        return lo, hi
