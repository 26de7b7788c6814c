"""Host-staged KV sender: a pool of worker threads copies a request's pages out of the
device pool into a registered pinned staging slot, then hands the slot to the transfer
engine. Copies are spread over a few streams so that requests overlap."""

import itertools
import queue
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import List, Optional

import torch

from disagg import cudart


@dataclass
class TransferKVChunk:
    room: int
    page_indices: List[int]
    kv_ready: torch.cuda.Event


class StagingKVSender:
    def __init__(self, kv_pool, transfer_engine, slot_pages: int, num_slots: int = 4,
                 num_streams: int = 2):
        self.kv_pool = kv_pool
        self.engine = transfer_engine
        self.slot_bytes = slot_pages * kv_pool.layer_num * 2 * kv_pool.page_nbytes
        self.staging = torch.empty(num_slots * self.slot_bytes, dtype=torch.uint8,
                                   pin_memory=True)
        self.engine.register(self.staging.data_ptr(), self.staging.nbytes)
        self._free_slots: "queue.Queue[int]" = queue.Queue()
        for slot in range(num_slots):
            self._free_slots.put(slot)
        self._streams = [torch.cuda.Stream() for _ in range(num_streams)]
        self._rr = itertools.count()
        self.executor = ThreadPoolExecutor(max_workers=num_streams, thread_name_prefix="kv-stage")

    def _next_stream(self) -> torch.cuda.Stream:
        return self._streams[next(self._rr) % len(self._streams)]

    def send(self, chunk: TransferKVChunk):
        return self.executor.submit(self.stage, chunk)

    def stage(self, chunk: TransferKVChunk) -> None:
        stream = self._next_stream()
        stream.wait_event(chunk.kv_ready)
        slot = self._free_slots.get()
        try:
            done = self._copy_pages(chunk, slot, stream)
            done.synchronize()
            nbytes = len(chunk.page_indices) * self.kv_pool.layer_num * 2 * self.kv_pool.page_nbytes
            self.engine.transfer_sync(chunk.room, self.staging.data_ptr() + slot * self.slot_bytes,
                                      nbytes)
        finally:
            self._free_slots.put(slot)

    def _copy_pages(self, chunk: TransferKVChunk, slot: int,
                    stream: Optional[torch.cuda.Stream] = None) -> torch.cuda.Event:
        stream = stream or self._next_stream()
        pool, nbytes = self.kv_pool, self.kv_pool.page_nbytes
        dst = self.staging.data_ptr() + slot * self.slot_bytes
        for page in chunk.page_indices:
            for layer_id in range(pool.layer_num):
                for buf in (pool.k_buffer[layer_id], pool.v_buffer[layer_id]):
                    cudart.memcpy_async(dst, buf.data_ptr() + page * nbytes, nbytes,
                                        cudart.cudaMemcpyDeviceToHost, stream.cuda_stream)
                    dst += nbytes
        done = torch.cuda.Event()
        done.record(stream)
        return done
