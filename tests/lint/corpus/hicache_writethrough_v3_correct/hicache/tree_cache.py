import logging
from typing import Dict, Optional

import torch

from .constants import WRITE_BACK, WRITE_THROUGH_THRESHOLD
from .controller import HiCacheController, device_module

logger = logging.getLogger(__name__)


class TreeNode:
    counter = 0

    def __init__(self, value: Optional[torch.Tensor] = None):
        self.id = TreeNode.counter
        TreeNode.counter += 1
        self.value = value
        self.host_value: Optional[torch.Tensor] = None
        self.hit_count = 0
        self.lock_ref = 0

    @property
    def backuped(self) -> bool:
        return self.host_value is not None


class HiRadixCache:
    def __init__(self, cache_controller: HiCacheController):
        self.cache_controller = cache_controller
        self.write_through_threshold = (
            1 if cache_controller.write_policy == "write_through" else WRITE_THROUGH_THRESHOLD
        )
        self.ongoing_write_through: Dict[int, TreeNode] = {}

    def write_backup(self, node: TreeNode) -> int:
        host_indices = self.cache_controller.write(node.value, node_id=node.id)
        if host_indices is None:
            return 0
        node.host_value = host_indices
        self.ongoing_write_through[node.id] = node
        node.lock_ref += 1
        return len(host_indices)

    def inc_hit_count(self, node: TreeNode) -> None:
        if self.cache_controller.write_policy == WRITE_BACK or node.backuped:
            return
        node.hit_count += 1
        if node.hit_count >= self.write_through_threshold:
            self.write_backup(node)

    def writing_check(self) -> None:
        finished = 0
        for ack in self.cache_controller.ack_write_queue:
            if not ack.finish_event.query():
                break
            finished += 1
        for _ in range(finished):
            ack = self.cache_controller.ack_write_queue.pop(0)
            for node_id in ack.node_ids:
                node = self.ongoing_write_through.pop(node_id)
                node.lock_ref -= 1

    def load_back(self, node: TreeNode) -> Optional[torch.Tensor]:
        device_indices = self.cache_controller.load(node.host_value, node_id=node.id)
        if device_indices is not None:
            node.value = device_indices
        return device_indices

    def ready_to_load_host_cache(self) -> None:
        ack = self.cache_controller.start_loading()
        if ack is not None:
            # The forward pass that reads the loaded pages runs after this.
            device_module.current_stream().wait_event(ack.finish_event)
