# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass, field
from typing import List


@dataclass
class ActivationOffloadConfig:
    fine_grained_activation_offloading: bool = False
    offload_modules: List[str] = field(default_factory=lambda: ["mlp"])
    # Tensors smaller than this many elements stay on the device.
    min_offloaded_tensor_size: int = 1024 * 1024
    pin_cpu_buffers: bool = True
