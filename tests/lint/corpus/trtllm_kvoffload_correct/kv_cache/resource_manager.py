from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass

import torch

from .block_pool import KVBlockPool
from .config import KvCacheConfig
from .transfer_manager import KVCacheTransferManager

logger = logging.getLogger("tensorrt_llm")

BlockKey = tuple[int, ...]


@dataclass
class BlockRef:
    index: int
    on_host: bool = False


class KVCacheManager:

    def __init__(self, config: KvCacheConfig, num_layers: int,
                 num_kv_heads: int, head_dim: int, dtype: torch.dtype):
        self._config = config
        self.pool = KVBlockPool(config, num_layers, num_kv_heads, head_dim,
                                dtype)
        self.transfer_manager = KVCacheTransferManager(self.pool, config)
        self._reuse_tree: dict[BlockKey, BlockRef] = {}
        self._gpu_block_keys: dict[int, BlockKey] = {}
        # Unreferenced primary blocks still holding reusable state, LRU order.
        self._evictable: OrderedDict[int, BlockKey] = OrderedDict()
        self._block_tables: dict[int, list[int]] = {}

    def prepare_resources(self, context_requests) -> None:
        for request in context_requests:
            self._block_tables[request.py_request_id] = self._add_sequence(
                request.block_keys(self._config.tokens_per_block))
        self.transfer_manager.sync_transfers()

    def free_resources(self, request) -> None:
        for gpu_block in self._block_tables.pop(request.py_request_id, []):
            key = self._gpu_block_keys.get(gpu_block)
            if key is None or not self._config.enable_block_reuse:
                self.pool.free_primary.append(gpu_block)
            else:
                self._evictable[gpu_block] = key

    def get_block_ids(self, request_id: int) -> list[int]:
        return self._block_tables[request_id]

    def _add_sequence(self, keys: list[BlockKey]) -> list[int]:
        blocks: list[int] = []
        for key in keys:
            ref = self._reuse_tree.get(key)
            if ref is not None and ref.on_host and self._config.onboard_blocks:
                gpu_block = self._claim_primary_block()
                self.transfer_manager.onboard(ref.index, gpu_block)
                self.pool.free_secondary.append(ref.index)
                ref.index, ref.on_host = gpu_block, False
            elif ref is not None and not ref.on_host:
                gpu_block = ref.index
                self._evictable.pop(gpu_block, None)
            else:
                if ref is not None:
                    self.pool.free_secondary.append(ref.index)
                gpu_block = self._claim_primary_block()
                self._reuse_tree[key] = BlockRef(gpu_block)
            self._gpu_block_keys[gpu_block] = key
            blocks.append(gpu_block)
        return blocks

    def _claim_primary_block(self) -> int:
        if self.pool.free_primary:
            return self.pool.free_primary.popleft()
        gpu_block, key = self._evictable.popitem(last=False)
        del self._gpu_block_keys[gpu_block]
        if self.pool.free_secondary:
            host_block = self.pool.free_secondary.popleft()
            self.transfer_manager.offload(gpu_block, host_block)
            self._reuse_tree[key] = BlockRef(host_block, on_host=True)
        else:
            self._reuse_tree.pop(key, None)
        return gpu_block
