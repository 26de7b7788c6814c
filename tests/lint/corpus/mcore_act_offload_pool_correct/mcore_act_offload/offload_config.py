# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
from dataclasses import dataclass, field
from typing import Tuple

OFFLOAD_MODULE_CHOICES: Tuple[str, ...] = (
    "attn_norm", "core_attn", "attn_proj", "mlp_norm", "expert_fc1", "moe_act",
)
MIN_OFFLOAD_NUMEL = 1 << 20


@dataclass
class ActivationOffloadConfig:
    offload_modules: Tuple[str, ...] = field(default_factory=lambda: ("core_attn",))
    min_offload_numel: int = MIN_OFFLOAD_NUMEL
    pin_memory: bool = True

    def __post_init__(self):
        for name in self.offload_modules:
            if name not in OFFLOAD_MODULE_CHOICES:
                raise ValueError(f"unsupported offload module {name}")
