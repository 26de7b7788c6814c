"""A ZeRO-Infinity style sub-group step: update one sub-group's fp32 state on the device, then
swap it out before the next sub-group is brought in."""

import torch

from .optimizer_swapper import OptimizerStateSwapper


class SubGroupOptimizer:
    def __init__(self, aio_handle, swap_folder, group_numels, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.lr, self.betas, self.eps = lr, betas, eps
        self.states = []
        for numel in group_numels:
            self.states.append({
                "fp32": torch.zeros(numel, dtype=torch.float32, device="cuda"),
                "exp_avg": torch.zeros(numel, dtype=torch.float32, device="cuda"),
                "exp_avg_sq": torch.zeros(numel, dtype=torch.float32, device="cuda"),
            })
        self.swapper = OptimizerStateSwapper(aio_handle, swap_folder, max(group_numels), 3)

    def step_group(self, group_id, grad):
        st = self.states[group_id]
        beta1, beta2 = self.betas
        st["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
        st["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = st["exp_avg_sq"].sqrt().add_(self.eps)
        st["fp32"].addcdiv_(st["exp_avg"], denom, value=-self.lr)
        self.swapper.swap_out_group(group_id, st)

    def step(self, grads):
        for group_id, grad in enumerate(grads):
            self.step_group(group_id, grad)
