# Copyright 2024 The HuggingFace Team. All rights reserved.
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class FlatWeights:
    """A module's parameters flattened into one pinned host buffer."""

    names: list[str]
    shapes: list[torch.Size]
    cpu_flat: torch.Tensor

    @classmethod
    def from_module(cls, module: nn.Module) -> "FlatWeights":
        named = list(module.named_parameters(recurse=True))
        flat = torch.cat([p.detach().reshape(-1).cpu() for _, p in named])
        return cls([n for n, _ in named], [p.shape for _, p in named], flat.pin_memory())

    @property
    def numel(self) -> int:
        return self.cpu_flat.numel()


class GpuSlotPool:
    """Fixed number of device buffers reused round-robin by consecutive modules."""

    def __init__(self, numel: int, dtype: torch.dtype, device: torch.device, num_slots: int = 2):
        self._slots = [torch.empty(numel, dtype=dtype, device=device) for _ in range(num_slots)]

    def slot_for(self, index: int) -> torch.Tensor:
        return self._slots[index % len(self._slots)]


def bind_flat_to_module(module: nn.Module, weights: FlatWeights, flat: torch.Tensor) -> None:
    offset = 0
    for name, shape in zip(weights.names, weights.shapes):
        n = shape.numel()
        module.get_parameter(name).data = flat[offset : offset + n].view(shape)
        offset += n
