from dataclasses import dataclass

import numpy as np

DEFAULT_BLOCK_TOKENS = 16
DEFAULT_NUM_SLOTS = 64


@dataclass(frozen=True)
class RingConfig:
    num_heads: int
    head_dim: int
    block_tokens: int = DEFAULT_BLOCK_TOKENS
    num_slots: int = DEFAULT_NUM_SLOTS
    dtype: type = np.float16
    spill_dir: str = "/tmp/kvring"

    @property
    def block_shape(self) -> tuple[int, int, int, int]:
        return (2, self.num_heads, self.block_tokens, self.head_dim)
