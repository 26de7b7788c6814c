from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class OffloadConfig:
    num_layers: int
    hidden: int
    intermediate: int
    max_tokens: int = 512
    num_slots: int = 2
    dtype: type = np.float32
    threads: tuple[int, int] = (16, 16)

    @property
    def weight_shape(self) -> tuple[int, int]:
        return (self.hidden, self.hidden)
