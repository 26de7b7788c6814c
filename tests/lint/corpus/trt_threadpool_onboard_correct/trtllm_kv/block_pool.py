"""Primary (GPU) and secondary (pinned host) block pools of the KV cache manager."""

from dataclasses import dataclass
from typing import Dict, List, Optional

import torch


@dataclass(frozen=True)
class KvCacheConfig:
    num_layers: int
    num_kv_heads: int
    head_dim: int
    tokens_per_block: int
    max_gpu_blocks: int
    max_host_blocks: int
    dtype: torch.dtype = torch.float16

    @property
    def block_shape(self):
        return (self.num_layers, 2, self.tokens_per_block, self.num_kv_heads, self.head_dim)


class GpuBlockPool:
    def __init__(self, cfg: KvCacheConfig):
        self.pool = torch.zeros((cfg.max_gpu_blocks,) + cfg.block_shape, dtype=cfg.dtype,
                                device="cuda")
        self._free: List[int] = list(range(cfg.max_gpu_blocks))

    def allocate(self, n: int) -> Optional[List[int]]:
        if n > len(self._free):
            return None
        blocks, self._free = self._free[:n], self._free[n:]
        return blocks

    def free(self, blocks: List[int]) -> None:
        # reuse is LIFO so hot blocks stay in L2
        self._free = list(blocks) + self._free


class HostBlockPool:
    def __init__(self, cfg: KvCacheConfig):
        self.pool = torch.empty((cfg.max_host_blocks,) + cfg.block_shape, dtype=cfg.dtype,
                                pin_memory=True)
        self._by_hash: Dict[int, List[int]] = {}

    def lookup(self, prefix_hash: int) -> List[int]:
        return self._by_hash.get(prefix_hash, [])
