"""Saves finished requests' KV blocks from the GPU cache into a pinned CPU
cache. The model-runner thread only enqueues work; a background thread
issues the device-to-host copies on its own stream."""

import queue
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

import torch

from .config import COPY_QUEUE_DEPTH, COPY_THREAD_NAME
from .cudart import CUDA_MEMCPY_DEVICE_TO_HOST, check, load_cudart


@dataclass
class StoreRequest:
    req_id: str
    gpu_block_ids: List[int]
    cpu_block_ids: List[int]


class CPUOffloadConnectorWorker:
    def __init__(self, kv_caches: Dict[str, torch.Tensor],
                 cpu_caches: Dict[str, torch.Tensor]):
        # layer name -> [num_blocks, ...] (GPU) / same shape pinned (CPU)
        self.kv_caches = kv_caches
        self.cpu_caches = cpu_caches
        self.device = next(iter(kv_caches.values())).device
        self._cudart = load_cudart()
        self._stream = torch.cuda.Stream(device=self.device)
        self._queue: "queue.Queue[Optional[StoreRequest]]" = queue.Queue(
            maxsize=COPY_QUEUE_DEPTH)
        self._finished: Set[str] = set()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._copy_loop,
                                        name=COPY_THREAD_NAME, daemon=True)
        self._thread.start()

    # -- model-runner thread -------------------------------------------------
    def wait_for_save(self, to_save: List[Tuple[str, List[int], List[int]]]) -> None:
        """Called after the forward pass of this step has been queued."""
        for req_id, gpu_ids, cpu_ids in to_save:
            self._queue.put(StoreRequest(req_id, gpu_ids, cpu_ids))

    def get_finished(self) -> Set[str]:
        with self._lock:
            done, self._finished = self._finished, set()
        return done

    def shutdown(self) -> None:
        self._queue.put(None)
        self._thread.join()

    # -- copy thread ---------------------------------------------------------
    def _copy_loop(self) -> None:
        torch.cuda.set_device(self.device)
        stream_handle = self._stream.cuda_stream
        while True:
            req = self._queue.get()
            if req is None:
                return
            for name, gpu_cache in self.kv_caches.items():
                cpu_cache = self.cpu_caches[name]
                block_bytes = gpu_cache[0].numel() * gpu_cache.element_size()
                for g, c in zip(req.gpu_block_ids, req.cpu_block_ids):
                    # expect: KVG001
                    rc = self._cudart.cudaMemcpyAsync(
                        cpu_cache[c].data_ptr(), gpu_cache[g].data_ptr(),
                        block_bytes, CUDA_MEMCPY_DEVICE_TO_HOST, stream_handle)
                    check(rc, "cudaMemcpyAsync(D2H)")
            check(self._cudart.cudaStreamSynchronize(stream_handle),
                  "cudaStreamSynchronize")
            with self._lock:
                self._finished.add(req.req_id)
