import logging
from typing import Dict, List, Optional

import torch

from .cache_controller import HiCacheController
from .constants import WRITE_THROUGH_SELECTIVE_THRESHOLD, WRITE_THROUGH_THRESHOLD
from .memory_pool import PagedTokenToKVPoolAllocator
from .memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)


class TreeNode:
    counter = 0

    def __init__(self, key: List[int], value: Optional[torch.Tensor] = None, parent=None):
        self.key = key
        self.value = value
        self.host_value: Optional[torch.Tensor] = None
        self.parent = parent
        self.lock_ref = 0
        self.hit_count = 0
        self.id = TreeNode.counter
        TreeNode.counter += 1

    @property
    def backuped(self) -> bool:
        return self.host_value is not None


class HiRadixCache:
    def __init__(
        self,
        token_to_kv_pool_allocator: PagedTokenToKVPoolAllocator,
        page_size: int,
        hicache_ratio: float,
        hicache_write_policy: str = "write_through",
    ):
        self.token_to_kv_pool_host = MHATokenToKVPoolHost(
            token_to_kv_pool_allocator.get_kvcache(), hicache_ratio, page_size
        )
        self.cache_controller = HiCacheController(
            token_to_kv_pool_allocator,
            self.token_to_kv_pool_host,
            page_size,
            write_policy=hicache_write_policy,
        )
        self.write_through_threshold = (
            WRITE_THROUGH_THRESHOLD
            if hicache_write_policy == "write_through"
            else WRITE_THROUGH_SELECTIVE_THRESHOLD
        )
        self.ongoing_write_through: Dict[int, TreeNode] = {}

    def _update_lock_ref(self, node: Optional[TreeNode], delta: int) -> None:
        while node is not None:
            node.lock_ref += delta
            node = node.parent

    def write_backup(self, node: TreeNode) -> int:
        host_indices = self.cache_controller.write(device_indices=node.value, node_id=node.id)
        if host_indices is None:
            logger.debug("host pool full, skip write-through of node %d", node.id)
            return 0
        node.host_value = host_indices
        self.ongoing_write_through[node.id] = node
        self._update_lock_ref(node, 1)
        return len(host_indices)

    def inc_hit_count(self, node: TreeNode) -> None:
        if self.cache_controller.write_policy == "write_back" or node.backuped:
            return
        node.hit_count += 1
        if node.hit_count >= self.write_through_threshold:
            self.write_backup(node)

    def writing_check(self) -> None:
        while self.cache_controller.ack_write_queue:
            ack = self.cache_controller.ack_write_queue[0]
            if not ack.finish_event.query():
                break
            self.cache_controller.ack_write_queue.pop(0)
            for node_id in ack.node_ids:
                self._update_lock_ref(self.ongoing_write_through.pop(node_id), -1)
