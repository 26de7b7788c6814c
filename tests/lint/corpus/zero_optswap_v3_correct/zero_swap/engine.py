# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import Dict, Optional

import torch
from deepspeed.utils import logger

from .constants import OFFLOAD_OPTIMIZER
from .swapper import PipelinedOptimizerSwapper


class ZeroInfinityOptimizerOffload:
    """Wraps a device optimizer and swaps its state out after every step."""

    def __init__(self, optimizer: torch.optim.Optimizer, ds_config: Dict):
        self.optimizer = optimizer
        largest = max(p.numel() for group in optimizer.param_groups for p in group["params"])
        self.swapper = PipelinedOptimizerSwapper(ds_config[OFFLOAD_OPTIMIZER], largest)
        self.global_steps = 0

    @staticmethod
    def _ensure_master(param: torch.nn.Parameter, state: Dict[str, torch.Tensor]) -> None:
        if "fp32_master" not in state:
            state["fp32_master"] = param.detach().float()
        else:
            state["fp32_master"].copy_(param.detach())

    @torch.no_grad()
    def step(self, closure: Optional[callable] = None):
        self.swapper.release_swap_stream()
        loss = self.optimizer.step(closure)
        for group in self.optimizer.param_groups:
            params = [p for p in group["params"] if p in self.optimizer.state and self.swapper.swappable(p)]
            for idx, param in enumerate(params):
                state = self.optimizer.state[param]
                self._ensure_master(param, state)
                last = idx == len(params) - 1
                self.swapper.swap_out_optimizer_state(id(param), state, async_op=not last)
            if not self.swapper.pipeline_write:
                written = self.swapper.writer.wait()
                logger.debug(f"step {self.global_steps}: wrote {written} bytes of optimizer state")
        self.global_steps += 1
        return loss
