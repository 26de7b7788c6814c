import logging
from dataclasses import dataclass
from typing import Optional

import torch

from trtllm_kv.kv_cache_config import DEFAULT_RETENTION_PRIORITY, KvCacheConfig

logger = logging.getLogger(__name__)


@dataclass(eq=False)
class KVCacheBlock:
    block_id: int
    pool_index: int
    is_primary: bool = True
    block_hash: Optional[int] = None
    priority: int = DEFAULT_RETENTION_PRIORITY
    ref_count: int = 0


class BlockPool:
    """Primary pool on the GPU, secondary pool in pinned host memory; one row per block."""

    def __init__(self, config: KvCacheConfig, num_layers: int, num_kv_heads: int, head_dim: int,
                 dtype: torch.dtype):
        self.block_bytes = num_layers * 2 * config.tokens_per_block * num_kv_heads * head_dim * dtype.itemsize
        self.num_primary = config.max_gpu_blocks
        self.num_secondary = config.host_cache_size // self.block_bytes
        self.primary = torch.empty((self.num_primary, self.block_bytes), dtype=torch.uint8, device="cuda")
        self.secondary = torch.empty((max(self.num_secondary, 1), self.block_bytes), dtype=torch.uint8,
                                     pin_memory=True)
        logger.info("[TRT-LLM] [I] KV cache pools: %d primary, %d secondary blocks of %d bytes",
                    self.num_primary, self.num_secondary, self.block_bytes)

    def primary_ptr(self, block: KVCacheBlock) -> int:
        assert block.is_primary
        return self.primary[block.pool_index].data_ptr()

    def secondary_ptr(self, block: KVCacheBlock) -> int:
        assert not block.is_primary
        return self.secondary[block.pool_index].data_ptr()
