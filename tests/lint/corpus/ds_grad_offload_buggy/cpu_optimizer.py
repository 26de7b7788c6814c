"""Minimal host-side Adam over flat fp32 master partitions."""

from typing import Dict, List

import torch

from .constants import ADAM_BETAS, ADAM_EPS, WEIGHT_DECAY


class DeepSpeedCPUAdamLite:
    def __init__(self, lr: float, betas=ADAM_BETAS, eps: float = ADAM_EPS,
                 weight_decay: float = WEIGHT_DECAY):
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.state: Dict[int, Dict[str, torch.Tensor]] = {}

    def _state_for(self, gid: int, master: torch.Tensor) -> Dict[str, torch.Tensor]:
        if gid not in self.state:
            self.state[gid] = {"step": torch.zeros(()),
                               "exp_avg": torch.zeros_like(master),
                               "exp_avg_sq": torch.zeros_like(master)}
        return self.state[gid]

    @torch.no_grad()
    def step_group(self, gid: int, master: torch.Tensor,
                   grad: torch.Tensor) -> None:
        """master, grad: flat fp32 CPU tensors of the same size."""
        st = self._state_for(gid, master)
        st["step"] += 1
        step = int(st["step"])
        if self.weight_decay:
            grad = grad.add(master, alpha=self.weight_decay)
        st["exp_avg"].mul_(self.beta1).add_(grad, alpha=1 - self.beta1)
        st["exp_avg_sq"].mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
        bias1 = 1 - self.beta1 ** step
        bias2 = 1 - self.beta2 ** step
        denom = (st["exp_avg_sq"] / bias2).sqrt_().add_(self.eps)
        master.addcdiv_(st["exp_avg"], denom, value=-self.lr / bias1)

    def groups(self) -> List[int]:
        return sorted(self.state)
