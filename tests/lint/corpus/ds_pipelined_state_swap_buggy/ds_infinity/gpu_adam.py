# SPDX-License-Identifier: Apache-2.0
"""A GPU Adam whose fp32 master weights and moments live on NVMe between steps."""

import math

import torch

from .pipelined_swapper import PipelinedOptimizerSwapper

NUM_STATES = 3  # master weight, exp_avg, exp_avg_sq


class NVMeStateAdam:
    def __init__(self, params, swap_folder, aio_config, lr=1e-4, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0.0):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.step_count = 0
        largest = max(p.numel() for p in self.params)
        self.swapper = PipelinedOptimizerSwapper(swap_folder, aio_config, largest, NUM_STATES,
                                                 torch.float32, self.params[0].device)

    @torch.no_grad()
    def step(self):
        self.step_count += 1
        beta1, beta2 = self.betas
        bias1 = 1 - beta1**self.step_count
        bias2 = 1 - beta2**self.step_count
        step_size = self.lr * math.sqrt(bias2) / bias1
        for param_id, param in enumerate(self.params):
            if param.grad is None:
                continue
            master, exp_avg, exp_avg_sq = self.swapper.swap_in_optimizer_state(param_id, param.numel())
            grad = param.grad.detach().view(-1).float()
            if self.weight_decay:
                master.mul_(1 - self.lr * self.weight_decay)
            exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            master.addcdiv_(exp_avg, exp_avg_sq.sqrt().add_(self.eps), value=-step_size)
            param.data.copy_(master.view_as(param))
            self.swapper.swap_out_optimizer_state(param_id, [master, exp_avg, exp_avg_sq])
        self.swapper.flush()

    def zero_grad(self):
        for p in self.params:
            p.grad = None
