# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Per-sub-group optimizer step with NVMe-resident Adam states."""

import logging
from typing import List

import torch

from .pipelined_swapper import PipelinedOptimizerSwapper

logger = logging.getLogger(__name__)


class Stage3OffloadStepper:

    def __init__(self, swapper: PipelinedOptimizerSwapper, fp32_partitions: List[torch.Tensor],
                 fp16_partitions: List[torch.Tensor], lr: float = 1e-4, betas=(0.9, 0.999), eps: float = 1e-8):
        self.swapper = swapper
        self.fp32_partitions = fp32_partitions
        self.fp16_partitions = fp16_partitions
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.step_count = 0

    @torch.no_grad()
    def _adam_update(self, param: torch.Tensor, grad: torch.Tensor, exp_avg: torch.Tensor,
                     exp_avg_sq: torch.Tensor) -> None:
        exp_avg.mul_(self.beta1).add_(grad, alpha=1 - self.beta1)
        exp_avg_sq.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
        bias1 = 1 - self.beta1 ** self.step_count
        bias2 = 1 - self.beta2 ** self.step_count
        denom = (exp_avg_sq / bias2).sqrt_().add_(self.eps)
        param.addcdiv_(exp_avg, denom, value=-self.lr / bias1)

    @torch.no_grad()
    def step(self, grads: List[torch.Tensor]) -> None:
        self.step_count += 1
        for sub_group_id, (fp32, grad) in enumerate(zip(self.fp32_partitions, grads)):
            numel = fp32.numel()
            states = self.swapper.swap_in_sub_group(sub_group_id, numel)
            self._adam_update(fp32, grad.float(), states["exp_avg"], states["exp_avg_sq"])
            self.fp16_partitions[sub_group_id].copy_(fp32)
            self.swapper.release_sub_group(sub_group_id, numel)
        logger.info("optimizer step %d done over %d sub-groups", self.step_count, len(self.fp32_partitions))
