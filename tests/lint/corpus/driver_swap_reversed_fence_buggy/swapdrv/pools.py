"""Per-layer KV block pools: the device pool and its pinned host mirror are torch tensors;
the swapper addresses blocks by raw pointer."""

from dataclasses import dataclass

import torch


@dataclass
class PoolSpec:
    num_layers: int
    num_blocks: int
    block_bytes: int


class BlockPool:
    def __init__(self, spec: PoolSpec, tensor: torch.Tensor):
        self.spec = spec
        self.tensor = tensor
        self.base = tensor.data_ptr()

    @classmethod
    def on_device(cls, spec: PoolSpec) -> "BlockPool":
        t = torch.empty(
            (spec.num_layers, spec.num_blocks, spec.block_bytes), dtype=torch.uint8, device="cuda"
        )
        return cls(spec, t)

    @classmethod
    def pinned(cls, spec: PoolSpec) -> "BlockPool":
        t = torch.empty(
            (spec.num_layers, spec.num_blocks, spec.block_bytes), dtype=torch.uint8, pin_memory=True
        )
        return cls(spec, t)

    def addr(self, layer: int, block: int) -> int:
        return self.base + (layer * self.spec.num_blocks + block) * self.spec.block_bytes
