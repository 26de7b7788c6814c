# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from dataclasses import dataclass, field
from typing import Tuple

VALID_OFFLOAD_MODULES = ("attn_norm", "core_attn", "attn_proj", "mlp_norm", "expert_fc1", "moe_act")


@dataclass
class FineGrainedOffloadConfig:
    """Which module inputs are moved to host memory during the forward pass."""

    offload_modules: Tuple[str, ...] = field(default_factory=lambda: ("core_attn",))
    min_offloaded_tensor_size: int = 1024 * 1024
    pin_host_buffers: bool = True

    def __post_init__(self):
        unknown = [m for m in self.offload_modules if m not in VALID_OFFLOAD_MODULES]
        if unknown:
            raise ValueError(f"unknown offload modules: {unknown}")

    def wants(self, name: str) -> bool:
        return name in self.offload_modules
