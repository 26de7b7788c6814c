# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import math
from typing import Sequence

import torch


class HostAdamW:
    """Plain AdamW over CPU tensors, one state dict per parameter."""

    def __init__(self, lr: float, betas: tuple[float, float], eps: float, weight_decay: float) -> None:
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.state: dict[int, dict[str, torch.Tensor]] = {}
        self.step_count = 0

    @torch.no_grad()
    def step(self, params: Sequence[torch.Tensor], grads: Sequence[torch.Tensor]) -> None:
        self.step_count += 1
        bias1 = 1 - self.beta1 ** self.step_count
        bias2 = 1 - self.beta2 ** self.step_count
        step_size = self.lr / bias1
        for param, grad in zip(params, grads):
            state = self.state.get(id(param))
            if state is None:
                state = {"exp_avg": torch.zeros_like(param), "exp_avg_sq": torch.zeros_like(param)}
                self.state[id(param)] = state
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.mul_(self.beta1).add_(grad, alpha=1 - self.beta1)
            exp_avg_sq.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
            denom = (exp_avg_sq.sqrt() / math.sqrt(bias2)).add_(self.eps)
            if self.weight_decay:
                param.mul_(1 - self.lr * self.weight_decay)
            param.addcdiv_(exp_avg, denom, value=-step_size)
