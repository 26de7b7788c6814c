"""The scheduler side: after a prefill, the finished request's pages are inserted into the
radix tree and backed up to the host pool (write-through); acknowledged backups mark the
node as evictable from the device."""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import torch

from hicache.cache_controller import HiCacheController
from hicache.memory_pool import MHATokenToKVPool
from hicache.memory_pool_host import MHATokenToKVPoolHost


@dataclass
class TreeNode:
    id: int
    device_pages: List[int]
    host_pages: Optional[List[int]] = None
    lock_ref: int = 0
    children: Dict[int, "TreeNode"] = field(default_factory=dict)


class HiRadixCache:
    def __init__(self, device_pool: MHATokenToKVPool):
        self.device_pool = device_pool
        self.host_pool = MHATokenToKVPoolHost(device_pool)
        self.cache_controller = HiCacheController(self.host_pool)
        self.ongoing_write_through: Dict[int, TreeNode] = {}
        self.next_id = 1

    def insert(self, device_pages: List[int]) -> TreeNode:
        node = TreeNode(self.next_id, device_pages)
        self.next_id += 1
        self.write_backup(node)
        return node

    def write_backup(self, node: TreeNode) -> None:
        host_pages = self.cache_controller.write(node.device_pages, node_id=node.id)
        if host_pages is not None:
            node.host_pages = host_pages
            node.lock_ref += 1
            self.ongoing_write_through[node.id] = node

    def writing_check(self) -> None:
        queue = self.cache_controller.ack_write_queue
        while not queue.empty():
            node = self.ongoing_write_through.pop(queue.get(), None)
            if node is not None:
                node.lock_ref -= 1


class Scheduler:
    def __init__(self, model_runner, device_pool: MHATokenToKVPool):
        self.model_runner = model_runner
        self.tree_cache = HiRadixCache(device_pool)
        self.forward_stream = torch.cuda.Stream()

    def run_prefill(self, batch) -> None:
        self.tree_cache.writing_check()
        with torch.cuda.stream(self.forward_stream):
            self.model_runner.forward(batch.input_ids, self.tree_cache.device_pool)
            for req in batch.reqs:
                req.last_node = self.tree_cache.insert(req.device_pages)
