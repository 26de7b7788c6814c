# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.

from dataclasses import dataclass, field
from typing import List

OFFLOADABLE_MODULES = ("attn_norm", "core_attn", "attn_proj", "mlp_norm", "expert_fc1", "moe_act")
MIN_OFFLOADED_TENSOR_SIZE = 1024 * 1024
CPU_POOL_BUCKET_BYTES = 64 * 1024 * 1024


@dataclass
class FineGrainedOffloadConfig:
    """Options controlling which module inputs are offloaded to host memory."""

    offload_modules: List[str] = field(default_factory=lambda: ["core_attn"])
    min_offloaded_tensor_size: int = MIN_OFFLOADED_TENSOR_SIZE
    use_cpu_pool: bool = True
    offload_checksum: bool = False

    def __post_init__(self):
        for name in self.offload_modules:
            assert name in OFFLOADABLE_MODULES, f"Unknown offload module {name}"
