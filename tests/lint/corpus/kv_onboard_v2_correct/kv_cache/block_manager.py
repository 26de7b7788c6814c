import logging
from collections import OrderedDict, deque
from typing import Deque, Dict, List

import torch

from .block_pool import BlockPool, KVCacheBlock
from .config import KvCacheConfig
from .transfer_manager import KVCacheTransferManager

logger = logging.getLogger(__name__)


class WindowBlockManager:
    def __init__(self, config: KvCacheConfig, device: torch.device):
        self.config = config
        self.pool = BlockPool(config, device)
        self.transfer_manager = KVCacheTransferManager(self.pool)
        self.all_blocks = [KVCacheBlock(i, i) for i in range(config.num_primary_blocks)]
        # evictable primary blocks, least recently released first
        self.free_primary: "OrderedDict[int, KVCacheBlock]" = OrderedDict(
            (b.block_id, b) for b in self.all_blocks
        )
        self.free_secondary: Deque[int] = deque(range(config.num_secondary_blocks))
        self.reuse_tree: Dict[int, KVCacheBlock] = {}
        self.allocated: Dict[int, List[KVCacheBlock]] = {}

    def _is_offload_candidate(self, block: KVCacheBlock) -> bool:
        return (
            self.config.host_cache_enabled
            and block.block_key is not None
            and len(self.free_secondary) > 0
            and block.priority >= self.config.secondary_offload_min_priority
        )

    def get_free_block(self) -> KVCacheBlock:
        _, victim = self.free_primary.popitem(last=False)
        if self._is_offload_candidate(victim):
            secondary_index = self.free_secondary.popleft()
            self.transfer_manager.offload(victim, secondary_index)
            offloaded = KVCacheBlock(victim.block_id, secondary_index, is_primary=False,
                                     block_key=victim.block_key, priority=victim.priority)
            self.reuse_tree[victim.block_key] = offloaded
        elif victim.block_key is not None:
            self.reuse_tree.pop(victim.block_key, None)
        victim.reset()
        return victim

    def _onboard(self, offloaded: KVCacheBlock) -> KVCacheBlock:
        target = self.get_free_block()
        self.transfer_manager.onboard(offloaded.memory_pool_block_index, target)
        self.free_secondary.append(offloaded.memory_pool_block_index)
        target.block_key, target.priority = offloaded.block_key, offloaded.priority
        self.reuse_tree[target.block_key] = target
        return target

    def add_sequence(self, request_id: int, block_keys: List[int], priority: int = 0) -> List[int]:
        """Returns the primary pool indices backing the request, reusing cached blocks."""
        blocks: List[KVCacheBlock] = []
        for key in block_keys:
            block = self.reuse_tree.get(key) if self.config.enable_block_reuse else None
            if block is None:
                block = self.get_free_block()
                block.block_key, block.priority = key, priority
                self.reuse_tree[key] = block
            elif not block.is_primary:
                block = self._onboard(block)
            else:
                self.free_primary.pop(block.block_id, None)
            block.ref_count += 1
            blocks.append(block)
        self.transfer_manager.sync_transfers()
        self.allocated[request_id] = blocks
        return [b.memory_pool_block_index for b in blocks]

    def remove_sequence(self, request_id: int) -> None:
        for block in self.allocated.pop(request_id, []):
            block.ref_count -= 1
            if block.ref_count == 0:
                self.free_primary[block.block_id] = block
