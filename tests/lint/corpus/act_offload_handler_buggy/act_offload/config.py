# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass


@dataclass
class ActivationOffloadConfig:
    """Knobs for offloading saved activations of transformer layers to host memory."""

    num_offload_groups: int = 1
    """Number of layer groups whose activations are moved to host memory."""

    num_model_groups: int = 1
    """Total number of layer groups in the model chunk."""

    double_buffer: bool = True
    """Offload group N while group N + 1 runs forward. If False, offload at the end of each group."""

    min_offload_numel: int = 256 * 1024
    """Saved tensors with fewer elements stay on device."""

    pin_memory: bool = True
