# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Adam update executed on host threads over pinned gradient copies."""
import math

import torch

from .buckets import HostBucket
from .config import OptimizerOffloadConfig


@torch.no_grad()
def run_cpu_adam(bucket: HostBucket, grads_ready, config: OptimizerOffloadConfig) -> int:
    grads_ready.synchronize()
    bucket.step += 1
    beta1, beta2 = config.betas
    bias_correction1 = 1.0 - beta1**bucket.step
    bias_correction2 = 1.0 - beta2**bucket.step
    step_size = config.lr / bias_correction1
    for param, grad16, exp_avg, exp_avg_sq in zip(bucket.cpu_params, bucket.cpu_grads, bucket.exp_avgs,
                                                  bucket.exp_avg_sqs):
        grad = grad16.to(dtype=torch.float32, copy=True)
        if config.weight_decay:
            param.mul_(1.0 - config.lr * config.weight_decay)
        exp_avg.mul_(beta1).add_(grad, alpha=1.0 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
        denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add_(config.eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)
    return bucket.step
