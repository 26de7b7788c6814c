# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

from dataclasses import dataclass, field
from typing import List


@dataclass
class ActivationOffloadConfig:
    """Configuration for fine-grained activation offloading."""

    offload_modules: List[str] = field(default_factory=lambda: ["core_attn"])
    """Modules whose saved inputs are moved to host memory during fprop."""

    min_offloaded_tensor_size: int = 1024 * 1024
    """Saved tensors with fewer elements than this stay on the device."""

    pool_tensors_per_shape: int = 4
    """How many reloaded GPU tensors of one shape/dtype are kept for reuse."""

    pin_cpu_buffers: bool = True
