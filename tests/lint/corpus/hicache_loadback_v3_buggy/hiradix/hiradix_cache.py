from __future__ import annotations

import logging
from typing import Optional

import numpy as np

from hiradix.cache_controller import HiCacheController

logger = logging.getLogger(__name__)


class TreeNode:
    counter = 0

    def __init__(self, host_value: np.ndarray):
        self.id = TreeNode.counter
        TreeNode.counter += 1
        self.host_value = host_value
        self.value: Optional[np.ndarray] = None
        self.lock_ref = 0

    @property
    def evicted(self) -> bool:
        return self.value is None


class HiRadixCache:
    def __init__(self, token_to_kv_pool_allocator, cache_controller: HiCacheController):
        self.token_to_kv_pool_allocator = token_to_kv_pool_allocator
        self.cache_controller = cache_controller
        self.ongoing_load_back: dict[int, TreeNode] = {}

    def load_back(self, node: TreeNode) -> Optional[np.ndarray]:
        if not node.evicted:
            return node.value
        # device slots come back from the allocator's free list and were
        # released by requests that finished in earlier steps
        device_indices = self.token_to_kv_pool_allocator.alloc(len(node.host_value))
        if device_indices is None:
            return None
        self.cache_controller.load(node.host_value, device_indices, node.id)
        node.value = device_indices
        self.ongoing_load_back[node.id] = node
        return device_indices

    def ready_to_load_host_cache(self) -> int:
        producer_index = self.cache_controller.start_loading()
        self.ongoing_load_back.clear()
        return producer_index
