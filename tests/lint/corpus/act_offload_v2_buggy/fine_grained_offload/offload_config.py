# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass, field
from typing import List


@dataclass
class ActivationOffloadConfig:
    offload_modules: List[str] = field(default_factory=lambda: ["core_attn"])
    """Modules whose saved inputs are moved to host after their forward."""

    min_offload_numel: int = 1 << 20
    """Saved tensors smaller than this stay on device."""

    pin_cpu_buffers: bool = True
