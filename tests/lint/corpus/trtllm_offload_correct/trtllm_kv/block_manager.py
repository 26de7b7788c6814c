import logging
from collections import deque
from typing import Deque, Dict, List

import torch

from trtllm_kv.block_pool import BlockPool, KVCacheBlock
from trtllm_kv.kv_cache_config import KvCacheConfig
from trtllm_kv.transfer_manager import KVCacheTransferManager

logger = logging.getLogger(__name__)


class BlockManager:
    def __init__(self, config: KvCacheConfig, pool: BlockPool, transfer_manager: KVCacheTransferManager):
        self._config = config
        self._transfer = transfer_manager
        self._free_primary: Deque[KVCacheBlock] = deque(KVCacheBlock(i, i) for i in range(pool.num_primary))
        self._free_secondary: Deque[KVCacheBlock] = deque(
            KVCacheBlock(pool.num_primary + i, i, is_primary=False) for i in range(pool.num_secondary))
        self._cached: Dict[int, KVCacheBlock] = {}

    def get_free_block(self, compute_stream) -> KVCacheBlock:
        block = self._free_primary.popleft()
        if block.block_hash is not None:
            if self._free_secondary and block.priority >= self._config.secondary_offload_min_priority:
                offload_block = self._free_secondary.popleft()
                self._transfer.offload(block, offload_block, compute_stream)
                offload_block.block_hash, offload_block.priority = block.block_hash, block.priority
                self._cached[block.block_hash] = offload_block
            else:
                del self._cached[block.block_hash]
            block.block_hash = None
        return block

    def onboard_block(self, offload_block: KVCacheBlock, compute_stream) -> KVCacheBlock:
        block = self.get_free_block(compute_stream)
        self._transfer.onboard(offload_block, block, compute_stream)
        block.block_hash, block.priority = offload_block.block_hash, offload_block.priority
        self._cached[block.block_hash] = block
        offload_block.block_hash = None
        self._free_secondary.append(offload_block)
        return block

    def acquire(self, block_hash: int, compute_stream) -> KVCacheBlock:
        block = self._cached.get(block_hash)
        if block is None:
            block = self.get_free_block(compute_stream)
            block.block_hash = block_hash
            self._cached[block_hash] = block
        elif not block.is_primary:
            block = self.onboard_block(block, compute_stream)
        elif block.ref_count == 0:
            self._free_primary.remove(block)
        block.ref_count += 1
        return block

    def release(self, block: KVCacheBlock) -> None:
        block.ref_count -= 1
        if block.ref_count == 0:
            self._free_primary.append(block)


class KVCacheManager:
    def __init__(self, config: KvCacheConfig, pool: BlockPool):
        self.transfer_manager = KVCacheTransferManager(pool)
        self.block_manager = BlockManager(config, pool, self.transfer_manager)
        self.request_blocks: Dict[int, List[KVCacheBlock]] = {}

    def prepare_resources(self, requests: Dict[int, List[int]]) -> None:
        """requests: request id -> block hashes of its prompt (already-allocated requests are skipped)."""
        stream = torch.cuda.current_stream().cuda_stream
        for request_id, block_hashes in requests.items():
            if request_id not in self.request_blocks:
                self.request_blocks[request_id] = [self.block_manager.acquire(h, stream) for h in block_hashes]
        self.transfer_manager.sync_transfers(stream)

    def free_resources(self, request_id: int) -> None:
        for block in reversed(self.request_blocks.pop(request_id, [])):
            self.block_manager.release(block)
