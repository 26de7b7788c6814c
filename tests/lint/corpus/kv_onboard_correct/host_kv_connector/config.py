from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class HostOffloadConfig:
    num_host_blocks: int = 4096
    tokens_per_block: int = 32
    dtype: torch.dtype = torch.float16
    pin_host_pool: bool = True
