import itertools
from typing import Dict, List, Optional, Tuple

import torch

from mem_cache.cache_controller import HiCacheController


class TreeNode:
    _ids = itertools.count()

    def __init__(self, hash_values: List[str]):
        self.hash_values = hash_values
        self.value: Optional[List[int]] = None
        self.host_value: Optional[List[int]] = None
        self.lock_ref = 0
        self.id = next(TreeNode._ids)


class HiRadixCache:
    def __init__(self, cache_controller: HiCacheController):
        self.cache_controller = cache_controller
        self.evictable: List[TreeNode] = []
        self.ongoing_write_through: List[Tuple[torch.Event, TreeNode]] = []
        self.ongoing_load_back: Dict[int, TreeNode] = {}

    def write_backup(self, node: TreeNode) -> int:
        ack = self.cache_controller.write(node.value, node.id)
        if ack is None:
            return 0
        node.host_value = ack.host_pages
        if self.cache_controller.storage_backend is not None:
            self.cache_controller.write_storage(ack.host_pages, node.hash_values, ack.finish_event)
        self.ongoing_write_through.append((ack.finish_event, node))
        return len(ack.host_pages)

    def writing_check(self) -> None:
        while self.ongoing_write_through and self.ongoing_write_through[0][0].query():
            self.evictable.append(self.ongoing_write_through.pop(0)[1])

    def evict(self, num_pages: int) -> int:
        freed = 0
        while self.evictable and freed < num_pages:
            node = self.evictable.pop(0)
            if node.lock_ref > 0 or node.value is None:
                continue
            self.cache_controller.mem_pool_device.free(node.value)
            freed += len(node.value)
            node.value = None
        return freed

    def load_back(self, node: TreeNode) -> Optional[List[int]]:
        device_pages = self.cache_controller.load(node.host_value, node.id)
        if device_pages is None:
            self.evict(len(node.host_value))
            device_pages = self.cache_controller.load(node.host_value, node.id)
        if device_pages is None:
            return None
        node.value = device_pages
        node.lock_ref += 1
        self.ongoing_load_back[node.id] = node
        return device_pages

    def ready_to_load_host_cache(self) -> int:
        return self.cache_controller.start_loading()

    def loading_check(self) -> None:
        acks = self.cache_controller.ack_load_queue
        while acks and acks[0].finish_event.query():
            for node_id in acks.pop(0).node_ids:
                self.ongoing_load_back.pop(node_id).lock_ref -= 1
