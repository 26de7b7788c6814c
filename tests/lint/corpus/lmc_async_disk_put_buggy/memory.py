"""Pinned host buffers handed between the connector and storage backends."""

from dataclasses import dataclass, field
from typing import Optional

import torch

from .config import KV_DTYPE


@dataclass
class MemoryObj:
    key: str
    tensor: torch.Tensor
    # recorded by the GPU connector once the D2H copy has been queued
    copy_done: Optional[torch.cuda.Event] = field(default=None, repr=False)

    @property
    def num_tokens(self) -> int:
        return self.tensor.shape[2]


class PinnedMemoryAllocator:
    def __init__(self, num_layers: int, hidden: int):
        self.shape_prefix = (num_layers, 2)
        self.hidden = hidden

    def allocate(self, key: str, num_tokens: int) -> MemoryObj:
        shape = (*self.shape_prefix, num_tokens, self.hidden)
        return MemoryObj(key, torch.empty(shape, dtype=KV_DTYPE,
                                          pin_memory=True))
