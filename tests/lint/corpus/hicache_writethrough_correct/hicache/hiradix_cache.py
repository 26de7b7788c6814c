import logging
import time
from typing import Dict, List, Optional

from hicache.cache_controller import HiCacheController
from hicache.memory_pool import MHATokenToKVPool
from hicache.memory_pool_host import MHATokenToKVPoolHost
from hicache.utils import get_hicache_ratio

logger = logging.getLogger(__name__)


class TreeNode:
    counter = 0

    def __init__(self, key: Optional[List[int]] = None, parent: Optional["TreeNode"] = None):
        self.children: Dict[int, "TreeNode"] = {}
        self.parent = parent
        self.key = key or []
        self.value: Optional[List[int]] = None
        self.host_value: Optional[List[int]] = None
        self.lock_ref = 0
        self.hit_count = 0
        self.last_access_time = time.monotonic()
        self.id = TreeNode.counter
        TreeNode.counter += 1

    @property
    def backuped(self) -> bool:
        return self.host_value is not None


class HiRadixCache:
    def __init__(self, device_pool: MHATokenToKVPool, write_policy: str = "write_through"):
        self.page_size = device_pool.page_size
        self.device_pool = device_pool
        self.host_pool = MHATokenToKVPoolHost(device_pool, get_hicache_ratio())
        self.cache_controller = HiCacheController(device_pool, self.host_pool, write_policy)
        self.write_through_threshold = 1 if write_policy == "write_through" else 2
        self.ongoing_write_through: Dict[int, TreeNode] = {}
        self.root_node = TreeNode()
        self.root_node.lock_ref = 1

    def insert(self, key: List[int], device_pages: List[int]) -> TreeNode:
        node = TreeNode(key, self.root_node)
        node.value = device_pages
        self.root_node.children[key[0]] = node
        self.inc_hit_count(node)
        return node

    def inc_hit_count(self, node: TreeNode) -> None:
        if node.backuped:
            return
        node.hit_count += 1
        if node.hit_count >= self.write_through_threshold:
            self.write_backup(node)
            node.hit_count = 0

    def write_backup(self, node: TreeNode) -> int:
        host_pages = self.cache_controller.write(device_pages=node.value, node_id=node.id)
        if host_pages is None:
            logger.info("host pool full, skip backup of node %d", node.id)
            return 0
        node.host_value = host_pages
        self.ongoing_write_through[node.id] = node
        self.inc_lock_ref(node)
        return len(host_pages)

    def writing_check(self) -> None:
        while not self.cache_controller.ack_write_queue.empty():
            ack = self.cache_controller.ack_write_queue.get_nowait()
            for node_id in ack.node_ids:
                node = self.ongoing_write_through.pop(node_id, None)
                if node is not None:
                    self.dec_lock_ref(node)

    def inc_lock_ref(self, node: TreeNode) -> None:
        while node is not self.root_node:
            node.lock_ref += 1
            node = node.parent

    def dec_lock_ref(self, node: TreeNode) -> None:
        while node is not self.root_node:
            node.lock_ref -= 1
            node = node.parent
