"""The transfer thread: copies evicted KV blocks from the device pool into the pinned host
pool on a non-blocking stream of its own, one cudaMemcpyAsync per (layer, block)."""

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Callable, List, Optional

import torch
from cuda.bindings import runtime as cudart

from .rt import EventPool, ck

logger = logging.getLogger(__name__)


@dataclass
class StoreJob:
    gpu_blocks: List[int]
    cpu_blocks: List[int]
    ready: object  # cudaEvent_t recorded on the model's stream after it wrote the blocks
    done: object
    on_done: Optional[Callable[[List[int]], None]] = None


class TransferThread:
    def __init__(self, gpu_cache: torch.Tensor, cpu_cache: torch.Tensor, events: EventPool):
        # [num_layers, num_blocks, block_bytes] uint8 views of both pools
        self.gpu_cache = gpu_cache
        self.cpu_cache = cpu_cache
        self.events = events
        self.num_layers, _, self.block_bytes = gpu_cache.shape
        self.stream = ck(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        self.jobs: "queue.Queue[Optional[StoreJob]]" = queue.Queue()
        self.thread = threading.Thread(target=self._loop, name="kv-transfer", daemon=True)
        self.thread.start()

    def submit(self, job: StoreJob) -> None:
        self.jobs.put(job)

    def shutdown(self) -> None:
        self.jobs.put(None)
        self.thread.join()

    def _loop(self) -> None:
        gpu_layer = self.gpu_cache.stride(0)
        cpu_layer = self.cpu_cache.stride(0)
        while True:
            job = self.jobs.get()
            if job is None:
                break
            ck(cudart.cudaStreamWaitEvent(self.stream, job.ready, 0))
            gpu_base = self.gpu_cache.data_ptr()
            cpu_base = self.cpu_cache.data_ptr()
            for layer in range(self.num_layers):
                for g, c in zip(job.gpu_blocks, job.cpu_blocks):
                    ck(cudart.cudaMemcpyAsync(
                        cpu_base + layer * cpu_layer + c * self.block_bytes,
                        gpu_base + layer * gpu_layer + g * self.block_bytes,
                        self.block_bytes,
                        cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost,
                        self.stream,
                    ))
            ck(cudart.cudaEventRecord(job.done, self.stream))
            ck(cudart.cudaEventSynchronize(job.done))
            self.events.release(job.ready, job.done)
            if job.on_done is not None:
                try:
                    job.on_done(job.cpu_blocks)
                except Exception:  # never let a callback kill the thread
                    logger.exception("store callback failed")
