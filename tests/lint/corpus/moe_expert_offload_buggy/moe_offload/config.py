from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class ExpertOffloadConfig:
    hidden_size: int
    intermediate_size: int
    num_experts: int
    num_experts_per_tok: int = 2
    num_gpu_slots: int = 4
    max_num_tokens: int = 8192
    dtype: torch.dtype = torch.bfloat16
    norm_topk_prob: bool = True

    def __post_init__(self) -> None:
        if self.num_gpu_slots < self.num_experts_per_tok:
            raise ValueError("need at least num_experts_per_tok GPU expert slots")
