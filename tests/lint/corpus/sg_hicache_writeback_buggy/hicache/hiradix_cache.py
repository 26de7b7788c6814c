"""HiRadixCache: evicted leaves are written back to host memory before their
device pages are returned to the allocator."""

import heapq
import time
from typing import Callable, Dict, List, Optional

import torch

from .cache_controller import HiCacheController
from .config import HOST_TO_DEVICE_RATIO, WRITE_POLICY
from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost


class TreeNode:
    counter = 0

    def __init__(self, key: tuple, value: Optional[torch.Tensor], parent=None):
        self.key = key
        self.value = value  # device pages, None once evicted
        self.host_value: Optional[torch.Tensor] = None
        self.parent = parent
        self.children: Dict[int, "TreeNode"] = {}
        self.lock_ref = 0
        self.last_access_time = time.monotonic()
        self.id = TreeNode.counter
        TreeNode.counter += 1

    @property
    def evicted(self) -> bool:
        return self.value is None

    @property
    def backuped(self) -> bool:
        return self.host_value is not None

    def __lt__(self, other: "TreeNode") -> bool:
        return self.last_access_time < other.last_access_time


class HiRadixCache:
    def __init__(self, device_pool: MHATokenToKVPool, free_device_pages: Callable):
        assert WRITE_POLICY == "write_back"
        self.host_pool = MHATokenToKVPoolHost(device_pool, HOST_TO_DEVICE_RATIO)
        self.cache_controller = HiCacheController(device_pool, self.host_pool)
        self.free_device_pages = free_device_pages
        self.root = TreeNode(key=(), value=torch.empty(0, dtype=torch.int64))
        self.ongoing_write_back: Dict[int, TreeNode] = {}

    def insert(self, key: tuple, device_pages: torch.Tensor) -> TreeNode:
        node = TreeNode(key, device_pages, parent=self.root)
        self.root.children[key[0]] = node
        return node

    def _leaves(self) -> List[TreeNode]:
        return [n for n in self.root.children.values() if not n.evicted and n.lock_ref == 0]

    def evict(self, num_pages: int) -> None:
        heap = self._leaves()
        heapq.heapify(heap)
        scheduled = 0
        while scheduled < num_pages and heap:
            node = heapq.heappop(heap)
            if node.backuped:
                scheduled += self._evict_backuped(node)
            elif self.write_backup(node):
                scheduled += len(node.value)

    def write_backup(self, node: TreeNode) -> bool:
        host_pages = self.cache_controller.write(node.value, node_id=node.id)
        if host_pages is None:
            return False
        node.host_value = host_pages
        node.lock_ref += 1
        self.ongoing_write_back[node.id] = node
        return True

    def writing_check(self) -> None:
        acks = self.cache_controller.ack_write_queue
        while not acks.empty():
            ack = acks.queue[0]
            if not ack.finish_event.query():
                break
            acks.get()
            for node_id in ack.node_ids:
                node = self.ongoing_write_back.pop(node_id)
                node.lock_ref -= 1
                self._evict_backuped(node)

    def _evict_backuped(self, node: TreeNode) -> int:
        num = len(node.value)
        self.free_device_pages(node.value)
        node.value = None
        return num
