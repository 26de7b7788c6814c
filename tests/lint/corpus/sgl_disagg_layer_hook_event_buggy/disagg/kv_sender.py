"""Prefill-side KV sender for a transport without GPUDirect: a transfer thread stages the
request's pages into registered pinned memory and hands the staged bytes to the engine."""

import logging
import queue
import threading
from dataclasses import dataclass
from typing import List

import torch

logger = logging.getLogger(__name__)


@dataclass
class TransferKVChunk:
    room: int
    page_indices: List[int]
    kv_ready: torch.cuda.Event


class HostStagedKVSender:
    def __init__(self, kv_pool, transfer_engine, max_pages: int):
        self.kv_pool = kv_pool
        self.engine = transfer_engine
        ps, heads, dim = kv_pool.page_size, kv_pool.head_num, kv_pool.head_dim
        self.staging = torch.empty((max_pages, kv_pool.layer_num, 2, ps, heads, dim),
                                   dtype=kv_pool.dtype, pin_memory=True)
        self.engine.register(self.staging.data_ptr(), self.staging.nbytes)
        self.stream = torch.cuda.Stream()
        self.queue: "queue.Queue[TransferKVChunk]" = queue.Queue()
        self.thread = threading.Thread(target=self.transfer_worker, daemon=True)
        self.thread.start()

    def add(self, chunk: TransferKVChunk) -> None:
        self.queue.put(chunk)

    def transfer_worker(self) -> None:
        pool, ps = self.kv_pool, self.kv_pool.page_size
        while True:
            chunk = self.queue.get()
            self.stream.wait_event(chunk.kv_ready)
            with torch.cuda.stream(self.stream):
                for slot, page in enumerate(chunk.page_indices):
                    for layer_id in range(pool.layer_num):
                        # expect: KVG001
                        self.staging[slot, layer_id, 0].copy_(
                            pool.k_buffer[layer_id][page * ps:(page + 1) * ps], non_blocking=True)
                        # expect: KVG001
                        self.staging[slot, layer_id, 1].copy_(
                            pool.v_buffer[layer_id][page * ps:(page + 1) * ps], non_blocking=True)
            self.stream.synchronize()
            nbytes = len(chunk.page_indices) * self.staging[0].nbytes
            self.engine.transfer_sync(chunk.room, self.staging.data_ptr(), nbytes)
