# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import math

import numpy as np


class HostAdam:
    """Adam/AdamW on flat fp32 partitions held in host memory."""

    def __init__(self, lr, betas, eps, weight_decay, adamw_mode=True):
        self.lr = lr
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.adamw_mode = adamw_mode

    def step_partition(self, step: int, param: np.ndarray, grad: np.ndarray, exp_avg: np.ndarray,
                       exp_avg_sq: np.ndarray, param16_out: np.ndarray) -> None:
        g = np.array(grad, dtype=np.float32, copy=True)
        if self.weight_decay and not self.adamw_mode:
            g += self.weight_decay * param
        exp_avg *= self.beta1
        exp_avg += (1.0 - self.beta1) * g
        exp_avg_sq *= self.beta2
        exp_avg_sq += (1.0 - self.beta2) * g * g
        bias1 = 1.0 - self.beta1**step
        bias2 = 1.0 - self.beta2**step
        denom = np.sqrt(exp_avg_sq) / math.sqrt(bias2) + self.eps
        if self.weight_decay and self.adamw_mode:
            param *= 1.0 - self.lr * self.weight_decay
        param -= (self.lr / bias1) * exp_avg / denom
        np.copyto(param16_out, param, casting="same_kind")
