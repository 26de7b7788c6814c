# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class HybridOptimizerConfig:
    """Knobs for splitting the optimizer step between host and device."""

    offload_fraction: float = 0.5
    """Fraction of parameter numel whose update runs on the CPU."""

    param_update_in_fp32: bool = False
    """Keep fp32 master copies and cast device grads before the update."""

    pin_cpu_grads: bool = True
    pin_cpu_params: bool = True

    overlap_cpu_optimizer_d2h_h2d: bool = True
    """Run grad D2H / param H2D on dedicated memcpy streams."""
