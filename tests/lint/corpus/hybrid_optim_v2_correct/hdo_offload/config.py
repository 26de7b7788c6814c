# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class OptimizerOffloadConfig:
    """Subset of the optimizer config that drives CPU offloading."""

    lr: float = 1e-4
    weight_decay: float = 0.01
    adam_beta1: float = 0.9
    adam_beta2: float = 0.95
    adam_eps: float = 1e-8

    optimizer_offload_fraction: float = 1.0
    """Fraction of (GPU) parameters whose optimizer step runs on the CPU."""

    overlap_cpu_optimizer_d2h_h2d: bool = False
    """Run gradient D2H and parameter H2D on dedicated streams."""

    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True
