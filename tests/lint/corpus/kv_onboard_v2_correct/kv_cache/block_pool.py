import logging
from dataclasses import dataclass
from typing import Optional

import torch

from .config import KvCacheConfig

logger = logging.getLogger(__name__)


@dataclass
class KVCacheBlock:
    block_id: int
    memory_pool_block_index: int
    is_primary: bool = True
    block_key: Optional[int] = None
    priority: int = 0
    ref_count: int = 0

    def reset(self) -> None:
        self.block_key = None
        self.priority = 0
        self.ref_count = 0


class BlockPool:
    """Primary (device) and secondary (pinned host) block storage for one window."""

    def __init__(self, config: KvCacheConfig, device: torch.device):
        self.device = device
        shape = (config.num_layers, 2, config.tokens_per_block, config.num_kv_heads, config.head_dim)
        self.primary_pool = torch.empty((config.num_primary_blocks, *shape), dtype=config.dtype, device=device)
        self.secondary_pool = torch.empty(
            (config.num_secondary_blocks, *shape), dtype=config.dtype, device="cpu", pin_memory=True
        )
        logger.info(
            "KV cache pools: %d primary blocks, %d secondary blocks",
            config.num_primary_blocks,
            config.num_secondary_blocks,
        )
