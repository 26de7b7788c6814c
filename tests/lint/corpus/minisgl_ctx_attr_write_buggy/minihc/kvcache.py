"""Paged device KV cache and its pinned host mirror (layer-first layout)."""

from dataclasses import dataclass
from typing import List

import torch


@dataclass
class KVCacheConfig:
    num_layers: int
    num_pages: int
    host_pages: int
    page_size: int
    num_kv_heads: int
    head_dim: int
    dtype: torch.dtype = torch.bfloat16


class PagedKVCache:
    def __init__(self, cfg: KVCacheConfig):
        self.cfg = cfg
        shape = (cfg.num_pages, cfg.page_size, 2, cfg.num_kv_heads, cfg.head_dim)
        self.layers: List[torch.Tensor] = [
            torch.zeros(shape, dtype=cfg.dtype, device="cuda") for _ in range(cfg.num_layers)
        ]

    @property
    def num_layers(self) -> int:
        return self.cfg.num_layers


class HostKVCache:
    def __init__(self, cfg: KVCacheConfig):
        shape = (cfg.host_pages, cfg.page_size, 2, cfg.num_kv_heads, cfg.head_dim)
        self.layers: List[torch.Tensor] = [
            torch.empty(shape, dtype=cfg.dtype, pin_memory=True) for _ in range(cfg.num_layers)
        ]
        self.free_pages = list(range(cfg.host_pages))

    def alloc(self, n: int):
        if n > len(self.free_pages):
            return None
        out, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return out
