"""Primary (GPU) and secondary (pinned host) block pools of the KV cache manager. A block holds
``tokens_per_block`` tokens of every layer's K and V."""

from dataclasses import dataclass

import torch


@dataclass
class PoolConfig:
    num_layers: int
    num_kv_heads: int
    head_dim: int
    tokens_per_block: int
    num_primary_blocks: int
    num_secondary_blocks: int
    dtype: torch.dtype = torch.float16


def _block_shape(cfg: PoolConfig):
    return (cfg.num_layers, 2, cfg.tokens_per_block, cfg.num_kv_heads, cfg.head_dim)


class PrimaryPool:
    def __init__(self, cfg: PoolConfig):
        self.data = torch.zeros((cfg.num_primary_blocks,) + _block_shape(cfg), dtype=cfg.dtype,
                                device="cuda")


class SecondaryPool:
    def __init__(self, cfg: PoolConfig):
        self.data = torch.zeros((cfg.num_secondary_blocks,) + _block_shape(cfg), dtype=cfg.dtype,
                                pin_memory=True)
