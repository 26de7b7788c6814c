"""An Adam whose moments are swapped to pinned host memory slice by slice during step()."""

import math

import torch

from .swap_state import SwapStateRegistry


class SwapAdam:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, swap_times=4):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps = lr, betas, eps
        self.swap_times = max(1, swap_times)
        self.step_count = 0
        SwapStateRegistry.init_streams()
        for p in self.params:
            SwapStateRegistry.register(p)

    def _slices(self):
        per = math.ceil(len(self.params) / self.swap_times)
        for i in range(0, len(self.params), per):
            yield self.params[i:i + per]

    @torch.no_grad()
    def _update(self, param, state):
        beta1, beta2 = self.betas
        grad = param.grad.detach().view(-1).float()
        state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
        state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias1 = 1 - beta1 ** self.step_count
        bias2 = 1 - beta2 ** self.step_count
        denom = (state["exp_avg_sq"] / bias2).sqrt_().add_(self.eps)
        param.view(-1).addcdiv_(state["exp_avg"], denom, value=-self.lr / bias1)

    @torch.no_grad()
    def step(self):
        self.step_count += 1
        for group in self._slices():
            states = [SwapStateRegistry.swap_to_device(p) for p in group]
            torch.cuda.current_stream().wait_stream(SwapStateRegistry.swap_to_device_stream)
            for p, state in zip(group, states):
                if p.grad is not None:
                    self._update(p, state)
                updated = torch.cuda.Event()
                updated.record()
                SwapStateRegistry.param_update_events_map[p] = updated
            for p in group:
                SwapStateRegistry.swap_to_host(p)

    def zero_grad(self):
        for p in self.params:
            p.grad = None
