import logging
from dataclasses import dataclass
from typing import Dict, List, Optional

from hicache.cache_controller import HiCacheController

logger = logging.getLogger(__name__)


@dataclass
class TreeNode:
    id: int
    device_starts: Optional[List[int]]
    host_starts: Optional[List[int]] = None
    last_access: float = 0.0
    lock_ref: int = 0


class HiRadixCache:
    def __init__(self, cache_controller: HiCacheController):
        self.cache_controller = cache_controller
        self.write_policy = cache_controller.write_policy
        self.nodes: Dict[int, TreeNode] = {}
        self.ongoing_write: Dict[int, TreeNode] = {}
        self.pending_evict: Dict[int, TreeNode] = {}

    def cache_finished_req(self, node: TreeNode) -> None:
        self.nodes[node.id] = node
        if self.write_policy == "write_through":
            node.host_starts = self.cache_controller.write(node.device_starts, node.id)
            if node.host_starts is not None:
                self.ongoing_write[node.id] = node

    def evict(self, num_tokens: int) -> int:
        victims = sorted(
            (n for n in self.nodes.values() if n.lock_ref == 0 and n.device_starts),
            key=lambda n: n.last_access,
        )
        evicted = 0
        for node in victims:
            if evicted >= num_tokens:
                break
            if node.host_starts is not None and node.id not in self.ongoing_write:
                self.cache_controller.mem_pool_device.free(node.device_starts)
                evicted += len(node.device_starts) * self.cache_controller.page_size
                node.device_starts = None
            elif self.write_policy == "write_back" and node.host_starts is None:
                node.host_starts = self.cache_controller.write_back_on_evict(
                    node.device_starts, node.id
                )
                if node.host_starts is not None:
                    self.pending_evict[node.id] = node
        return evicted

    def writing_check(self) -> None:
        ack_queue = self.cache_controller.ack_write_queue
        while not ack_queue.empty() and ack_queue.queue[0].finish_event.query():
            ack = ack_queue.get_nowait()
            for node_id in ack.node_ids:
                self.ongoing_write.pop(node_id, None)
                node = self.pending_evict.pop(node_id, None)
                if node is not None:
                    self.cache_controller.mem_pool_device.free(node.device_starts)
                    node.device_starts = None
