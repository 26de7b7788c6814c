from __future__ import annotations

import enum
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class LoRAConfig:
    max_loras: int = 4
    max_lora_rank: int = 16
    max_cpu_loras: int = 32
    lora_dtype: torch.dtype = torch.float16

    def __post_init__(self) -> None:
        if self.max_lora_rank not in (8, 16, 32, 64, 128, 256):
            raise ValueError(f"max_lora_rank ({self.max_lora_rank}) is not supported")
        if self.max_cpu_loras < self.max_loras:
            raise ValueError("max_cpu_loras must be >= max_loras")


class SlotState(enum.Enum):
    FREE = enum.auto()
    LOADING = enum.auto()
    ACTIVE = enum.auto()
