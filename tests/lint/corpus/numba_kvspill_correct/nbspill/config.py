from dataclasses import dataclass

import numpy as np

BLOCK_TOKENS = 16
MAX_THREADS_PER_BLOCK = 256


@dataclass(frozen=True)
class SpillConfig:
    num_gpu_blocks: int
    num_host_blocks: int
    hidden_size: int
    spill_dir: str
    queue_depth: int = 32
    dtype: type = np.float16

    @property
    def block_elems(self) -> int:
        return BLOCK_TOKENS * self.hidden_size
