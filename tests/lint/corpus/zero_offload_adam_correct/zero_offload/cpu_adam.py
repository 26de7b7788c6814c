# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

import torch


class CPUAdamKernel:
    """Reference AdamW update on host tensors, applied to one slice of the partition."""

    def __init__(self, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.weight_decay = weight_decay

    @torch.no_grad()
    def step_range(self, step, lr, fp32_params, grads, exp_avg, exp_avg_sq, start, end, combined_scale):
        p = fp32_params[start:end]
        g = grads[start:end].float().div_(combined_scale)
        m = exp_avg[start:end]
        v = exp_avg_sq[start:end]
        if self.weight_decay > 0.0:
            p.mul_(1.0 - lr * self.weight_decay)
        m.mul_(self.beta1).add_(g, alpha=1.0 - self.beta1)
        v.mul_(self.beta2).addcmul_(g, g, value=1.0 - self.beta2)
        bias1 = 1.0 - self.beta1**step
        bias2 = 1.0 - self.beta2**step
        denom = (v / bias2).sqrt_().add_(self.eps)
        p.addcdiv_(m, denom, value=-lr / bias1)
