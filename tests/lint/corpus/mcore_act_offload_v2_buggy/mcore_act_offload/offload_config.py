# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class ActivationOffloadConfig:
    """Configuration for offloading saved activations of transformer layers to host memory."""

    num_offload_groups: int = 1
    """Number of leading layer groups whose activations are moved to CPU."""

    eager_offload: bool = False
    """Start the copy as soon as autograd saves a tensor instead of at group commit."""

    min_offloaded_tensor_size: int = 1024 * 1024
    """Tensors with fewer elements stay on the device."""

    pin_memory: bool = True

    def __post_init__(self):
        if self.num_offload_groups < 0:
            raise ValueError(f"num_offload_groups must be >= 0, got {self.num_offload_groups}")
