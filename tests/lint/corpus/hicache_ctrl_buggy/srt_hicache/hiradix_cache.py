import threading
from typing import Dict, List, Optional

import torch

from srt_hicache.cache_controller import HiCacheController
from srt_hicache.constants import WRITE_BACK, WRITE_THROUGH_HIT_THRESHOLD
from srt_hicache.memory_pool_host import MHATokenToKVPoolHost


class TreeNode:
    counter = 0

    def __init__(self, value: torch.Tensor):
        self.id = TreeNode.counter
        TreeNode.counter += 1
        self.value: Optional[torch.Tensor] = value
        self.host_value: Optional[torch.Tensor] = None
        self.hit_count = self.lock_ref = 0


class HiRadixCache:
    def __init__(self, token_to_kv_pool_allocator, page_size: int, hicache_ratio: float,
                 hicache_mem_layout: str, hicache_write_policy: str):
        self.token_to_kv_pool_host = MHATokenToKVPoolHost(
            token_to_kv_pool_allocator.get_kvcache(), hicache_ratio, page_size, hicache_mem_layout
        )
        self.load_cache_event = threading.Event()
        self.cache_controller = HiCacheController(
            token_to_kv_pool_allocator, self.token_to_kv_pool_host, page_size,
            load_cache_event=self.load_cache_event, write_policy=hicache_write_policy,
        )
        self.write_through_threshold = (
            1 if hicache_write_policy == "write_through" else WRITE_THROUGH_HIT_THRESHOLD
        )
        self.ongoing_write_through: Dict[int, TreeNode] = {}

    def write_backup(self, node: TreeNode) -> int:
        host_indices = self.cache_controller.write(device_indices=node.value, node_id=node.id)
        if host_indices is None:
            return 0
        node.host_value = host_indices
        self.ongoing_write_through[node.id] = node
        node.lock_ref += 1
        return len(host_indices)

    def inc_hit_count(self, node: TreeNode) -> None:
        if self.cache_controller.write_policy == WRITE_BACK or node.host_value is not None:
            return
        node.hit_count += 1
        if node.hit_count >= self.write_through_threshold:
            self.write_backup(node)

    def writing_check(self, write_back: bool = False) -> None:
        ack_queue = self.cache_controller.ack_write_queue
        while ack_queue:
            if write_back:
                ack_queue[0].finish_event.synchronize()
            elif not ack_queue[0].finish_event.query():
                break
            ack = ack_queue.pop(0)
            for node_id in ack.node_ids:
                node = self.ongoing_write_through.pop(node_id)
                node.lock_ref -= 1

    def evict(self, nodes: List[TreeNode]) -> int:
        num_evicted = 0
        for node in nodes:
            if node.lock_ref > 0:
                continue
            if node.host_value is None:
                if self.cache_controller.write_policy != WRITE_BACK:
                    continue
                self.write_backup(node)
                self.writing_check(write_back=True)
            num_evicted += self.cache_controller.evict_device(node.value)
            node.value = None
        return num_evicted

    def load_back(self, node: TreeNode) -> Optional[torch.Tensor]:
        if node.value is not None or node.host_value is None:
            return node.value
        device_indices = self.cache_controller.load(host_indices=node.host_value, node_id=node.id)
        if device_indices is None:
            return None
        node.value = device_indices
        return device_indices

    def init_load_back(self, nodes: List[TreeNode]) -> None:
        for node in nodes:
            self.load_back(node)
        self.cache_controller.start_loading()
