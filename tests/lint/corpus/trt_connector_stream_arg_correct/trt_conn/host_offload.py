"""A host-offload connector worker: blocks of requests that finished generating are copied to
a pinned host pool by an offload thread with cudaMemcpyAsync, one block at a time, on the
thread's own stream after it waited on the save's ready event. The ready event is recorded on
the stream the executor says the forward pass ran on, which need not be the calling thread's
current stream."""

import queue
import threading
from dataclasses import dataclass
from typing import List, Set, Tuple

import torch
from cuda.bindings import runtime as cudart

from trt_conn.connector import KvCacheConnectorWorker


@dataclass
class SaveJob:
    req_id: int
    block_ids: List[int]
    host_slots: List[int]
    ready: torch.cuda.Event


def _cuda_check(result) -> None:
    if result[0] != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error {result[0]}")


class HostOffloadConnectorWorker(KvCacheConnectorWorker):
    def __init__(self, num_host_blocks: int):
        super().__init__()
        self.num_host_blocks = num_host_blocks
        self.save_queue: "queue.Queue[SaveJob]" = queue.Queue()
        self.saved: Set[int] = set()
        self.lock = threading.Lock()

    def register_kv_caches(self, kv_cache_tensor: torch.Tensor) -> None:
        # [num_blocks, num_layers, 2, tokens_per_block, num_kv_heads, head_dim] on the GPU
        self.kv_cache = kv_cache_tensor
        self.block_bytes = kv_cache_tensor[0].numel() * kv_cache_tensor.element_size()
        self.host_pool = torch.empty((self.num_host_blocks,) + tuple(kv_cache_tensor.shape[1:]),
                                     dtype=kv_cache_tensor.dtype, pin_memory=True)
        self.offload_stream = torch.cuda.Stream(device=kv_cache_tensor.device)
        self.offload_thread = threading.Thread(target=self._offload_loop, daemon=True)
        self.offload_thread.start()

    def start_load_kv(self, stream: torch.cuda.Stream) -> None:
        pass

    def save_kv_layer(self, layer_idx: int, stream: torch.cuda.Stream) -> None:
        pass

    def wait_for_save(self, stream: torch.cuda.Stream) -> None:
        meta = self._metadata
        if meta is None or not meta.finished_requests:
            return
        ready = torch.cuda.Event()
        ready.record(stream)
        for req_id, block_ids, host_slots in meta.finished_requests:
            self.save_queue.put(SaveJob(req_id, block_ids, host_slots, ready))

    def _offload_loop(self) -> None:
        torch.cuda.set_device(self.kv_cache.device)
        while True:
            job = self.save_queue.get()
            self.offload_stream.wait_event(job.ready)
            handle = self.offload_stream.cuda_stream
            for block_id, slot in zip(job.block_ids, job.host_slots):
                src = self.kv_cache.data_ptr() + block_id * self.block_bytes
                dst = self.host_pool.data_ptr() + slot * self.block_bytes
                _cuda_check(cudart.cudaMemcpyAsync(dst, src, self.block_bytes,
                                                   cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, handle))
            done = torch.cuda.Event()
            done.record(self.offload_stream)
            done.synchronize()
            with self.lock:
                self.saved.add(job.req_id)

    def get_finished(self, finished_gen_req_ids: List[int],
                     started_loading_req_ids: List[int]) -> Tuple[List[int], List[int]]:
        with self.lock:
            done = [r for r in finished_gen_req_ids if r in self.saved]
            self.saved.difference_update(done)
        return done, []
