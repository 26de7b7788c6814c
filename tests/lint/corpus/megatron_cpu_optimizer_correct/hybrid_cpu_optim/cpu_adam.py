# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
import numpy as np

from .optimizer_config import CPUOffloadOptimizerConfig


def adam_step_(
    param: np.ndarray,
    grad: np.ndarray,
    exp_avg: np.ndarray,
    exp_avg_sq: np.ndarray,
    step: int,
    config: CPUOffloadOptimizerConfig,
) -> None:
    """In-place decoupled-weight-decay Adam on fp32 numpy views."""
    b1, b2 = config.adam_beta1, config.adam_beta2
    param *= 1.0 - config.lr * config.weight_decay
    exp_avg *= b1
    exp_avg += (1.0 - b1) * grad
    exp_avg_sq *= b2
    exp_avg_sq += (1.0 - b2) * np.square(grad)
    bias_c1 = 1.0 - b1**step
    bias_c2 = 1.0 - b2**step
    denom = np.sqrt(exp_avg_sq / bias_c2) + config.adam_eps
    param -= (config.lr / bias_c1) * exp_avg / denom
