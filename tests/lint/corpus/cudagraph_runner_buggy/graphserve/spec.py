from __future__ import annotations

import dataclasses
from typing import ClassVar

import torch


@dataclasses.dataclass(frozen=True)
class GraphSpec:
    max_batch_size: int
    max_seq_len: int
    device: torch.device = torch.device("cuda", 0)

    INPUT_NAMES: ClassVar[tuple[str, ...]] = ("input_ids", "positions", "seq_lens")


@dataclasses.dataclass
class StaticIO:
    """Device tensors whose addresses are baked into the captured graph."""

    inputs: dict[str, torch.Tensor]
    next_tokens: torch.Tensor

    @classmethod
    def allocate(cls, spec: GraphSpec) -> "StaticIO":
        b = spec.max_batch_size
        inputs = {
            name: torch.zeros(b, dtype=torch.int64, device=spec.device) for name in spec.INPUT_NAMES
        }
        return cls(inputs=inputs, next_tokens=torch.zeros(b, dtype=torch.int64, device=spec.device))

    def pinned_output_like(self) -> torch.Tensor:
        return torch.empty(self.next_tokens.shape, dtype=self.next_tokens.dtype, pin_memory=True)
