# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class CPUOffloadOptimizerConfig:
    """Subset of OptimizerConfig used by the CPU-offloaded Adam path."""

    lr: float = 1e-4
    adam_beta1: float = 0.9
    adam_beta2: float = 0.95
    adam_eps: float = 1e-8
    weight_decay: float = 0.1
    log_params_norm: bool = True
    """Compute the L2 norm of the model params every step (for logging)."""
