# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class OptimizerConfig:
    """Configuration for the hybrid CPU/GPU optimizer."""

    lr: float = 1e-4
    weight_decay: float = 0.01
    adam_beta1: float = 0.9
    adam_beta2: float = 0.95
    adam_eps: float = 1e-8

    optimizer_cpu_offload: bool = True
    """Keep a fraction of the master parameters and their optimizer state on the host."""

    optimizer_offload_fraction: float = 0.5
    """Fraction of GPU parameter elements whose update runs on the CPU."""

    overlap_cpu_optimizer_d2h_h2d: bool = True
    """Use dedicated streams for gradient D2H and parameter H2D transfers."""

    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True

    check_for_nan_in_grad: bool = True
    """Skip the step when an offloaded gradient holds inf or nan."""
