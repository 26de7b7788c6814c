# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass
from typing import Tuple


@dataclass
class OptimizerOffloadConfig:
    """Options for running part of the Adam update on the host."""

    offload_fraction: float = 0.5
    """Fraction of parameters (by numel) whose optimizer states live in host memory."""

    lr: float = 1e-4
    betas: Tuple[float, float] = (0.9, 0.95)
    eps: float = 1e-8
    weight_decay: float = 0.1

    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True
    num_cpu_workers: int = 4
    """Number of host threads that run the CPU Adam update, one bucket per task."""
