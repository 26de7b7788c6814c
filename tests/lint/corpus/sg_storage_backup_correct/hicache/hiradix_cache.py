"""Write-through HiRadixCache: every finished prefix is copied to host memory
and then handed to the L3 backup thread."""

import hashlib
from typing import Dict, List, Optional

import torch

from .cache_controller import HiCacheController
from .config import PAGE_SIZE, WRITE_POLICY
from .memory_pool import MHATokenToKVPool, MHATokenToKVPoolHost


def page_hashes(token_ids: List[int], prior: Optional[str] = None) -> List[str]:
    hashes = []
    for i in range(0, len(token_ids) - PAGE_SIZE + 1, PAGE_SIZE):
        h = hashlib.sha256((prior or "").encode())
        h.update(bytes(str(token_ids[i : i + PAGE_SIZE]), "utf-8"))
        prior = h.hexdigest()
        hashes.append(prior)
    return hashes


class HiRadixCache:
    def __init__(self, device_pool: MHATokenToKVPool, host_num_pages: int):
        assert WRITE_POLICY == "write_through"
        self.host_pool = MHATokenToKVPoolHost(device_pool, host_num_pages)
        self.cache_controller = HiCacheController(device_pool, self.host_pool)
        self.host_value: Dict[int, torch.Tensor] = {}
        self.ongoing_backup: Dict[int, int] = {}

    def cache_finished_req(self, node_id: int, token_ids: List[int], device_pages: torch.Tensor) -> None:
        result = self.cache_controller.write(device_pages, node_id)
        if result is None:
            return
        host_pages, finish_event = result
        self.host_value[node_id] = host_pages
        hashes = page_hashes(token_ids)[: len(host_pages)]
        op_id = self.cache_controller.write_storage(host_pages, hashes, finish_event)
        self.ongoing_backup[op_id] = node_id

    def check_backup_progress(self) -> List[int]:
        done = []
        q = self.cache_controller.ack_backup_queue
        while not q.empty():
            op_id, ok = q.get()
            node_id = self.ongoing_backup.pop(op_id)
            if ok:
                done.append(node_id)
        return done
