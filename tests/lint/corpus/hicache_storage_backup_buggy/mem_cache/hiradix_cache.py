import logging
from typing import Dict, List, Optional

import torch

from .cache_controller import HiCacheController
from .hicache_storage import HiCacheStorage, get_hash_str
from .memory_pool_host import MHATokenToKVPoolHost

logger = logging.getLogger(__name__)


class TreeNode:
    counter = 0

    def __init__(self, key: List[int], value: torch.Tensor, parent=None):
        self.key = key
        self.value = value
        self.parent = parent
        self.host_value: Optional[torch.Tensor] = None
        self.hash_value: Optional[List[str]] = None
        self.id = TreeNode.counter
        TreeNode.counter += 1


class HiRadixCache:
    def __init__(
        self,
        mem_pool_device,
        page_size: int,
        hicache_ratio: float,
        storage_backend: Optional[HiCacheStorage] = None,
        hicache_write_policy: str = "write_through",
    ):
        self.page_size = page_size
        self.token_to_kv_pool_host = MHATokenToKVPoolHost(mem_pool_device, hicache_ratio, page_size)
        self.cache_controller = HiCacheController(
            mem_pool_device,
            self.token_to_kv_pool_host,
            page_size,
            storage_backend=storage_backend,
            write_policy=hicache_write_policy,
        )
        self.enable_storage = storage_backend is not None
        self.ongoing_write_through: Dict[int, TreeNode] = {}
        self.ongoing_backup: Dict[int, TreeNode] = {}

    def _page_hashes(self, node: TreeNode) -> List[str]:
        prior = node.parent.hash_value[-1] if node.parent and node.parent.hash_value else None
        hashes = []
        for i in range(0, len(node.key), self.page_size):
            prior = get_hash_str(node.key[i : i + self.page_size], prior)
            hashes.append(prior)
        return hashes

    def write_backup(self, node: TreeNode) -> int:
        host_indices = self.cache_controller.write(device_indices=node.value, node_id=node.id)
        if host_indices is None:
            return 0
        node.host_value = host_indices
        self.ongoing_write_through[node.id] = node
        if self.enable_storage and self.cache_controller.write_policy == "write_through":
            self.write_backup_storage(node)
        return len(host_indices)

    def write_backup_storage(self, node: TreeNode, ready_event: Optional[torch.Event] = None) -> None:
        node.hash_value = self._page_hashes(node)
        operation_id = self.cache_controller.write_storage(
            node.host_value, node.key, node.hash_value, ready_event=ready_event
        )
        self.ongoing_backup[operation_id] = node

    def writing_check(self) -> None:
        queue = self.cache_controller.ack_write_queue
        while queue and queue[0].finish_event.query():
            ack = queue.pop(0)
            for node_id in ack.node_ids:
                node = self.ongoing_write_through.pop(node_id)
                if self.enable_storage and node.hash_value is None:
                    self.write_backup_storage(node, ready_event=ack.finish_event)
