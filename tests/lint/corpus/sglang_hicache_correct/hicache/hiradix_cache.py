from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from enum import Enum
from typing import Dict, List, Optional

import torch

from .cache_controller import HiCacheController

logger = logging.getLogger(__name__)


class WritePolicy(str, Enum):
    WRITE_THROUGH = "write_through"
    WRITE_BACK = "write_back"
    WRITE_THROUGH_SELECTIVE = "write_through_selective"


@dataclass(eq=False)
class TreeNode:
    id: int
    parent: Optional["TreeNode"] = None
    value: Optional[List[int]] = None  # device page indices
    host_value: Optional[List[int]] = None  # host page indices
    lock_ref: int = 0
    hit_count: int = 0
    hash_value: List[str] = field(default_factory=list)

    @property
    def evicted(self) -> bool:
        return self.value is None

    @property
    def backuped(self) -> bool:
        return self.host_value is not None


class HiRadixCache:
    def __init__(self, cache_controller: HiCacheController, write_policy: WritePolicy = WritePolicy.WRITE_THROUGH,
                 write_through_threshold: int = 2, enable_storage: bool = False) -> None:
        self.cache_controller = cache_controller
        self.write_policy = write_policy
        self.write_through_threshold = 1 if write_policy == WritePolicy.WRITE_THROUGH else write_through_threshold
        self.enable_storage = enable_storage
        self.page_size = cache_controller.mem_pool_host.page_size
        self.ongoing_write_through: Dict[int, TreeNode] = {}
        self.ongoing_load_back: Dict[int, TreeNode] = {}

    def write_backup(self, node: TreeNode) -> int:
        host_indices = self.cache_controller.write(device_indices=node.value, node_id=node.id)
        if host_indices is None:
            return 0
        node.host_value = host_indices
        self.ongoing_write_through[node.id] = node
        node.lock_ref += 1
        return len(host_indices)

    def inc_hit_count(self, node: TreeNode) -> None:
        if self.write_policy == WritePolicy.WRITE_BACK or node.backuped:
            return
        node.hit_count += 1
        if node.hit_count >= self.write_through_threshold:
            self.write_backup(node)
            node.hit_count = 0

    def _page_hashes(self, node: TreeNode) -> List[str]:
        host_kv = self.cache_controller.mem_pool_host.kv_buffer
        prior = node.parent.hash_value[-1] if node.parent and node.parent.hash_value else ""
        hashes = []
        for start in node.host_value:
            h = hashlib.sha256(prior.encode())
            h.update(host_kv[:, :, start : start + self.page_size].numpy().tobytes())
            prior = h.hexdigest()
            hashes.append(prior)
        return hashes

    def writing_check(self) -> None:
        queue = self.cache_controller.ack_write_queue
        while not queue.empty():
            node_id, finish_event = queue.get_nowait()
            node = self.ongoing_write_through.pop(node_id)
            finish_event.synchronize()
            if self.enable_storage:
                node.hash_value = self._page_hashes(node)
            node.lock_ref -= 1

    def load_back(self, node: TreeNode) -> Optional[List[int]]:
        device_indices = self.cache_controller.load(host_indices=node.host_value, node_id=node.id)
        if device_indices is None:
            return None
        node.value = device_indices
        node.lock_ref += 1
        self.ongoing_load_back[node.id] = node
        return device_indices

    def loading_check(self) -> None:
        queue = self.cache_controller.ack_load_queue
        while not queue.empty():
            node_id, finish_event = queue.get_nowait()
            torch.cuda.current_stream().wait_event(finish_event)
            node = self.ongoing_load_back.pop(node_id)
            node.lock_ref -= 1
