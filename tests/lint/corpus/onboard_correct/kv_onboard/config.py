from dataclasses import dataclass

import torch


@dataclass
class OnboardConfig:
    num_gpu_blocks: int
    num_host_blocks: int
    block_numel: int
    dtype: torch.dtype = torch.bfloat16
    prefetch_lookahead: int = 4
    loader_queue_depth: int = 64
