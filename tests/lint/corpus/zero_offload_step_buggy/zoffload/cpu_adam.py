"""Host-side Adam used when the optimizer state is offloaded."""
from __future__ import annotations

import math

import torch

from .config import AdamConfig


class DeepSpeedCPUAdam:
    def __init__(self, config: AdamConfig):
        self.config = config
        self.state: dict[int, dict] = {}

    def _get_state(self, group_idx, like):
        state = self.state.get(group_idx)
        if state is None:
            state = {
                "step": 0,
                "exp_avg": torch.zeros_like(like),
                "exp_avg_sq": torch.zeros_like(like),
            }
            self.state[group_idx] = state
        return state

    @torch.no_grad()
    def step_partition(self, group_idx, fp32_params, grads, grad_scale=1.0):
        cfg = self.config
        state = self._get_state(group_idx, fp32_params)
        state["step"] += 1
        beta1, beta2 = cfg.betas

        grad = grads.float()
        if grad_scale != 1.0:
            grad.mul_(grad_scale)
        if cfg.weight_decay:
            if cfg.adamw_mode:
                fp32_params.mul_(1.0 - cfg.lr * cfg.weight_decay)
            else:
                grad.add_(fp32_params, alpha=cfg.weight_decay)

        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.mul_(beta1).add_(grad, alpha=1.0 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)

        bias_correction1 = 1.0 - beta1 ** state["step"]
        bias_correction2 = 1.0 - beta2 ** state["step"]
        denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add_(cfg.eps)
        fp32_params.addcdiv_(exp_avg, denom, value=-cfg.lr / bias_correction1)
