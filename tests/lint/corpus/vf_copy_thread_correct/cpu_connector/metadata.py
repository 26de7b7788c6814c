"""Metadata passed from the scheduler-side connector to the worker side."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class ReqSaveSpec:
    req_id: str
    gpu_block_ids: list[int]
    cpu_block_ids: list[int]


@dataclass
class CpuConnectorMetadata:
    saves: list[ReqSaveSpec] = field(default_factory=list)

    def block_mapping(self) -> torch.Tensor:
        """[N, 2] int64 CPU tensor, the layout swap_blocks expects."""
        pairs = [
            (g, c)
            for spec in self.saves
            for g, c in zip(spec.gpu_block_ids, spec.cpu_block_ids)
        ]
        return torch.tensor(pairs, dtype=torch.int64, device="cpu").view(-1, 2)


@dataclass
class SaveJob:
    """One layer's worth of device-to-host work for the copy thread."""

    layer_name: str
    block_mapping: torch.Tensor
    # Recorded on the forward (compute) stream right after attention wrote
    # this layer's KV; the copy must not start before it.
    ready: torch.cuda.Event
    req_ids: tuple[str, ...]
