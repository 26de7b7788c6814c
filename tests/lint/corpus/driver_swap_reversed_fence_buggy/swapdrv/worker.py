"""Executes one scheduled step: swaps first, then the forward over the device pool."""

from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import torch

from .swapper import DriverBlockSwapper


@dataclass
class StepPlan:
    input_ids: torch.Tensor
    block_tables: torch.Tensor
    swap_out: Optional[Tuple[List[int], List[int]]] = None
    swap_in: Optional[Tuple[List[int], List[int]]] = None
    finished: List[int] = field(default_factory=list)


class Worker:
    def __init__(self, model, num_layers, gpu_blocks, cpu_blocks, block_bytes):
        self.model = model
        self.swapper = DriverBlockSwapper(num_layers, gpu_blocks, cpu_blocks, block_bytes)

    @torch.inference_mode()
    def execute(self, plan: StepPlan) -> torch.Tensor:
        self.swapper.run_swaps(plan.swap_out, plan.swap_in)
        logits = self.model(plan.input_ids, plan.block_tables, self.swapper.device_pool.tensor)
        return logits.argmax(dim=-1)
