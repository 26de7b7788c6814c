"""A plain GPU Adam; its moments live in ``self.state[p]`` like torch.optim.Adam's."""

import math

import torch


class GPUAdam:
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.step_count = 0
        self.state = {
            p: {"exp_avg": torch.zeros_like(p), "exp_avg_sq": torch.zeros_like(p)} for p in self.params
        }

    @torch.no_grad()
    def step(self):
        self.step_count += 1
        beta1, beta2 = self.betas
        bias1 = 1 - beta1**self.step_count
        bias2 = 1 - beta2**self.step_count
        step_size = self.lr * math.sqrt(bias2) / bias1
        for p in self.params:
            if p.grad is None:
                continue
            state = self.state[p]
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            if self.weight_decay:
                p.mul_(1 - self.lr * self.weight_decay)
            exp_avg.mul_(beta1).add_(p.grad, alpha=1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            p.addcdiv_(exp_avg, exp_avg_sq.sqrt().add_(self.eps), value=-step_size)

    def zero_grad(self):
        for p in self.params:
            p.grad = None
