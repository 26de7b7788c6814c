"""Paged KV pool of the context (prefill) instance."""

from dataclasses import dataclass
from typing import Dict, List

import torch


@dataclass
class KvCacheConfig:
    num_blocks: int
    tokens_per_block: int
    bytes_per_token: int

    @property
    def block_bytes(self) -> int:
        return self.tokens_per_block * self.bytes_per_token


class KVCacheManager:
    def __init__(self, config: KvCacheConfig):
        self.config = config
        self.pool = torch.zeros((config.num_blocks, config.block_bytes), dtype=torch.uint8, device="cuda")
        self.free_blocks: List[int] = list(range(config.num_blocks))
        self.blocks: Dict[int, List[int]] = {}

    def add_sequence(self, request_id: int, num_blocks: int) -> List[int]:
        blocks = [self.free_blocks.pop() for _ in range(num_blocks)]
        self.blocks[request_id] = blocks
        return blocks

    def get_block_ids(self, request_id: int) -> List[int]:
        return self.blocks[request_id]
