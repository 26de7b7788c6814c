from __future__ import annotations

from dataclasses import dataclass

import torch
from safetensors.torch import load_file

from lora_slots.config import LoRAConfig


@dataclass
class LoRAAdapterWeights:
    adapter_id: int
    rank: int
    scaling: float
    lora_a: torch.Tensor  # [num_layers, max_rank, in_features], pinned
    lora_b: torch.Tensor  # [num_layers, out_features, max_rank], pinned

    @classmethod
    def from_checkpoint(
        cls, adapter_id: int, path: str, alpha: float, num_layers: int, config: LoRAConfig
    ) -> "LoRAAdapterWeights":
        tensors = load_file(f"{path}/adapter_model.safetensors", device="cpu")
        a = [tensors[f"base_model.model.layers.{i}.lora_A.weight"] for i in range(num_layers)]
        b = [tensors[f"base_model.model.layers.{i}.lora_B.weight"] for i in range(num_layers)]
        rank = a[0].shape[0]
        if rank > config.max_lora_rank:
            raise ValueError(f"LoRA rank {rank} exceeds max_lora_rank {config.max_lora_rank}")
        pad = config.max_lora_rank - rank
        lora_a = torch.nn.functional.pad(torch.stack(a), (0, 0, 0, pad))
        lora_b = torch.nn.functional.pad(torch.stack(b), (0, pad))
        return cls(
            adapter_id=adapter_id,
            rank=rank,
            scaling=alpha / rank,
            lora_a=lora_a.to(config.lora_dtype).pin_memory(),
            lora_b=lora_b.to(config.lora_dtype).pin_memory(),
        )
