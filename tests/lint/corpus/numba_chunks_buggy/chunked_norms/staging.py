from dataclasses import dataclass

import numpy as np
from numba import cuda


@dataclass
class Slot:
    h_in: np.ndarray
    h_out: np.ndarray
    d_in: object
    d_out: object
    uploaded: object
    consumed: object


def make_slots(num_slots: int, chunk_rows: int, n_cols: int, dtype) -> list[Slot]:
    slots = []
    for _ in range(num_slots):
        slots.append(
            Slot(
                h_in=cuda.pinned_array((chunk_rows, n_cols), dtype=dtype),
                h_out=cuda.pinned_array((chunk_rows,), dtype=np.float64),
                d_in=cuda.device_array((chunk_rows, n_cols), dtype=dtype),
                d_out=cuda.device_array((chunk_rows,), dtype=np.float64),
                uploaded=cuda.event(timing=False),
                consumed=cuda.event(timing=False),
            )
        )
    return slots
