# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

from dataclasses import dataclass

OFFLOAD_CPU_DEVICE = "cpu"
ZERO_OPTIMIZATION_GRADIENTS = 2


@dataclass
class DeepSpeedZeroOffloadOptimizerConfig:
    device: str = OFFLOAD_CPU_DEVICE
    pin_memory: bool = True
    overlap_comm: bool = False
    reduce_bucket_size: int = 500_000_000
    gradient_clipping: float = 0.0
    cpu_adam_threads: int = 4
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    weight_decay: float = 0.0
