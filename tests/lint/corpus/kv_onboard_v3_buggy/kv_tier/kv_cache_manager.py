import logging
from typing import Optional

import torch

from kv_tier.block_pool import BlockPool, KVCacheBlock
from kv_tier.transfer_manager import KVCacheTransferManager

logger = logging.getLogger(__name__)


class KVCacheManager:
    """Resource manager for the PyTorch backend: reuses cached prefix blocks,
    bringing back blocks that only live in the secondary pool."""

    def __init__(self, primary_pool: torch.Tensor, num_secondary_blocks: int):
        self.block_pool = BlockPool(primary_pool.shape[0])
        self.transfer_manager = KVCacheTransferManager(primary_pool, num_secondary_blocks)
        self.block_pool.set_evict_callback(self._on_evict)
        self.secondary_index: dict[int, int] = {}   # block hash -> secondary idx
        self.req_blocks: dict[int, list[KVCacheBlock]] = {}

    def _on_evict(self, block: KVCacheBlock) -> None:
        idx = self.transfer_manager.on_evict(block)
        if idx is not None and block.block_hash is not None:
            self.secondary_index[block.block_hash] = idx

    def _reuse_or_onboard(self, block_hash: int) -> Optional[KVCacheBlock]:
        block = self.block_pool.cached.get(block_hash)
        if block is not None:
            self.block_pool.free_blocks.pop(block.block_id, None)
            block.ref_count += 1
            return block
        idx = self.secondary_index.get(block_hash)
        if idx is None:
            return None
        block = self.block_pool.get_free_block()
        self.transfer_manager.onboard(idx, block)
        block.block_hash = block_hash
        block.secondary_idx = idx
        self.block_pool.cached[block_hash] = block
        return block

    def prepare_resources(self, request_id: int, block_hashes: list[int],
                          num_new_blocks: int) -> list[KVCacheBlock]:
        blocks: list[KVCacheBlock] = []
        for block_hash in block_hashes:
            block = self._reuse_or_onboard(block_hash)
            if block is None:
                break
            blocks.append(block)
        for _ in range(num_new_blocks + len(block_hashes) - len(blocks)):
            blocks.append(self.block_pool.get_free_block())
        self.req_blocks[request_id] = blocks
        logger.debug("request %d: %d blocks (%d reused)", request_id, len(blocks),
                     len(block_hashes))
        return blocks

    def free_resources(self, request_id: int) -> None:
        for block in self.req_blocks.pop(request_id, []):
            if block.block_hash is not None and block.secondary_idx is not None:
                self.secondary_index[block.block_hash] = block.secondary_idx
            self.block_pool.release(block)
