from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PipelineParams:
    n_channels: int
    n_samples: int
    n_beams: int
    normalize: bool = False
    threads_per_block: tuple[int, int] = (16, 16)
    n_host_buffers: int = 3
    dtype: type = np.float32

    @property
    def grid(self) -> tuple[int, int]:
        tx, ty = self.threads_per_block
        return ((self.n_beams + tx - 1) // tx, (self.n_samples + ty - 1) // ty)
