# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class CpuOffloadOptimizerConfig:
    """Configuration for the hybrid (GPU + CPU) optimizer."""

    offload_fraction: float = 1.0
    """Fraction of parameters (by numel) whose update runs on the host."""

    clip_grad: float = 1.0
    """Gradient clipping based on global L2 norm; 0 disables clipping."""

    overlap_cpu_optimizer_d2h_h2d: bool = True
    """Use dedicated streams for grad download / param upload."""

    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True
