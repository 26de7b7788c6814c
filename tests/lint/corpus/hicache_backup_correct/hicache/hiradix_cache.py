"""Scheduler-side owner of the hierarchical cache (trimmed radix tree)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import torch

from hicache.cache_controller import HiCacheController
from hicache.memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost
from hicache.storage import HiCacheFile


@dataclass
class TreeNode:
    id: int
    keys: list[str]
    device_pages: list[int]
    host_pages: Optional[list[int]] = None
    hit_count: int = 0
    backuped: bool = False
    backuped_storage: bool = False
    children: dict = field(default_factory=dict)


class HiRadixCache:
    def __init__(self, device_pool: MHATokenToKVPool, write_through_threshold: int = 2):
        self.host_pool = MHATokenToKVPoolHost(device_pool)
        self.cache_controller = HiCacheController(device_pool, self.host_pool, HiCacheFile())
        self.write_through_threshold = write_through_threshold
        self.ongoing_write_through: dict[int, TreeNode] = {}
        self.ongoing_backup: dict[int, TreeNode] = {}

    def write_backup(self, node: TreeNode) -> int:
        # Mark the point on the forward stream after which the node's KV is complete.
        producer_event = torch.cuda.Event()
        producer_event.record(torch.cuda.current_stream())
        host_pages = self.cache_controller.write(
            node.device_pages, node.keys, node.id, producer_event
        )
        if host_pages is None:
            return 0
        node.host_pages = host_pages
        self.ongoing_write_through[node.id] = node
        self.ongoing_backup[node.id] = node
        return len(host_pages)

    def inc_hit_count(self, node: TreeNode) -> None:
        if node.backuped or node.id in self.ongoing_write_through:
            return
        node.hit_count += 1
        if node.hit_count >= self.write_through_threshold:
            self.write_backup(node)

    def writing_check(self) -> None:
        acks = self.cache_controller.ack_write_queue
        while acks and acks[0][0].query():
            _, node_id = acks.pop(0)
            self.ongoing_write_through.pop(node_id).backuped = True
        while not self.cache_controller.ack_backup_queue.empty():
            node_id = self.cache_controller.ack_backup_queue.get()
            node = self.ongoing_backup.pop(node_id, None)
            if node is not None:
                node.backuped_storage = True
