"""The scheduler calls offload_kv_cache after each decode step of a request and
check_offload_progress once per event-loop iteration."""

import hashlib
import time
from typing import Dict, List, Tuple

import torch
import torch.distributed as dist

from decode_offload.cache_controller import HiCacheController
from decode_offload.memory_pool_host import DeviceKVPool, HostKVPool


class DecodeKVCacheOffloadManager:

    def __init__(self, device_pool: DeviceKVPool, page_size: int, tp_cpu_group,
                 storage_backend: str = "file", storage_extra_config: dict = None,
                 host_pages: int = 65536):
        self.page_size = page_size
        self.tp_group = tp_cpu_group
        self.tp_world_size = dist.get_world_size(group=tp_cpu_group)
        self.host_pool = HostKVPool(device_pool, host_pages)
        self.cache_controller = HiCacheController(device_pool, self.host_pool, storage_backend,
                                                  storage_extra_config or {})
        self.request_counter = 0
        self.ongoing_offload: Dict[int, Tuple[object, List[int], List[int], float]] = {}
        self.ongoing_backup: Dict[int, Tuple[str, List[int], float]] = {}
        self.offloaded_pages: Dict[str, int] = {}

    def offload_kv_cache(self, req) -> bool:
        done = self.offloaded_pages.get(req.rid, 0)
        full_pages = (len(req.origin_input_ids) + len(req.output_ids) - 1) // self.page_size
        if full_pages <= done:
            return False
        device_pages = req.page_table[done:full_pages]
        tokens = (req.origin_input_ids + req.output_ids)[done * self.page_size:full_pages * self.page_size]
        self.request_counter += 1
        ack_id = self.request_counter
        host_pages = self.cache_controller.write(device_pages, node_id=ack_id)
        if host_pages is None:
            return False
        self.ongoing_offload[ack_id] = (req, host_pages, tokens, time.time())
        self.offloaded_pages[req.rid] = full_pages
        return True

    def check_offload_progress(self) -> None:
        cc = self.cache_controller
        qsizes = torch.tensor([len(cc.ack_write_queue), cc.ack_backup_queue.qsize()], dtype=torch.int)
        if self.tp_world_size > 1:
            dist.all_reduce(qsizes, op=dist.ReduceOp.MIN, group=self.tp_group)
        n_write, n_backup = map(int, qsizes.tolist())
        self._check_offload_progress(n_write)
        self._check_backup_progress(n_backup)

    def _check_offload_progress(self, finish_count: int) -> None:
        # every rank of the group holds at least finish_count acknowledgements, so every rank
        # backs up the same pages; an acknowledgement says the write was issued, not that it
        # has landed in the host pool
        for _ in range(finish_count):
            _, finish_event, node_ids = self.cache_controller.ack_write_queue.pop(0)
            finish_event.synchronize()
            for ack_id in node_ids:
                req, host_pages, tokens, start = self.ongoing_offload.pop(ack_id)
                self._trigger_backup(req, host_pages, tokens, start)

    def _check_backup_progress(self, finish_count: int) -> None:
        for _ in range(finish_count):
            op = self.cache_controller.ack_backup_queue.get()
            _, host_pages, _ = self.ongoing_backup.pop(op.id)
            self.host_pool.free(host_pages)

    def _trigger_backup(self, req, host_pages: List[int], tokens: List[int], start: float) -> None:
        hashes, prior = [], req.rid.encode()
        for i in range(0, len(tokens), self.page_size):
            prior = hashlib.sha256(prior + str(tokens[i:i + self.page_size]).encode()).digest()
            hashes.append(prior.hex())
        ack_id = self.cache_controller.write_storage(host_pages, hashes)
        self.ongoing_backup[ack_id] = (req.rid, host_pages, start)
