from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class StageConfig:
    """Static shape / placement description of a two-stage pipeline."""

    src_device: int = 0
    dst_device: int = 1
    micro_batch: int = 32
    hidden: int = 4096
    dtype: np.dtype = np.dtype(np.float16)
    # Number of pinned host slots in flight between the two devices.
    n_slots: int = 2

    @property
    def act_shape(self) -> tuple[int, int]:
        return (self.micro_batch, self.hidden)

    @property
    def act_nbytes(self) -> int:
        return self.micro_batch * self.hidden * self.dtype.itemsize
