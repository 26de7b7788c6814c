# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
import queue
import threading
from typing import Callable, List, Optional, Tuple

import torch
from cuda.bindings import driver

from .batch_copy import batch_d2h, batch_h2d
from .constants import DEFAULT_HOST_BLOCKS
from .cuda_utils import check, create_event, create_stream, torch_current_stream
from .host_pool import HostBlockPool

logger = logging.getLogger(__name__)

ReleaseFn = Callable[[List[int]], None]


class KVBlockOffloader:
    """Moves paged KV blocks of paused requests to pinned host memory and
    back, on a private driver stream ordered behind the compute stream."""

    def __init__(self, kv_memory: torch.Tensor, release_gpu_blocks: ReleaseFn,
                 num_host_blocks: int = DEFAULT_HOST_BLOCKS):
        self.kv_memory = kv_memory
        self.block_bytes = kv_memory[0].numel() * kv_memory.element_size()
        self.device_id = kv_memory.device.index
        self.host_pool = HostBlockPool(num_host_blocks, self.block_bytes)
        self.release_gpu_blocks = release_gpu_blocks
        self.stream = create_stream()
        self._compute_ready = create_event()
        self._done: "queue.Queue[Optional[Tuple[driver.CUevent, List[int]]]]" = queue.Queue()
        self._poller = threading.Thread(target=self._retire_loop, name="kv-offload-retire", daemon=True)
        self._poller.start()

    def _dev_addr(self, block_id: int) -> int:
        return self.kv_memory.data_ptr() + block_id * self.block_bytes

    def _order_after_compute(self) -> None:
        check(driver.cuEventRecord(self._compute_ready, torch_current_stream()))
        check(driver.cuStreamWaitEvent(self.stream, self._compute_ready, 0))

    def offload(self, gpu_block_ids: List[int]) -> List[int]:
        host_ids = self.host_pool.allocate(len(gpu_block_ids))
        self._order_after_compute()
        batch_d2h([self.host_pool.addr(h) for h in host_ids], [self._dev_addr(b) for b in gpu_block_ids],
                  self.block_bytes, self.device_id, self.stream)
        done = create_event()
        check(driver.cuEventRecord(done, self.stream))
        self._done.put((done, list(gpu_block_ids)))
        return host_ids

    def restore(self, host_ids: List[int], gpu_block_ids: List[int]) -> None:
        self._order_after_compute()
        batch_h2d([self._dev_addr(b) for b in gpu_block_ids], [self.host_pool.addr(h) for h in host_ids],
                  self.block_bytes, self.device_id, self.stream)
        restored = create_event()
        check(driver.cuEventRecord(restored, self.stream))
        check(driver.cuStreamWaitEvent(torch_current_stream(), restored, 0))
        self.host_pool.free(host_ids)

    def _retire_loop(self) -> None:
        while True:
            item = self._done.get()
            if item is None:
                return
            event, gpu_block_ids = item
            check(driver.cuEventSynchronize(event))
            check(driver.cuEventDestroy(event))
            self.release_gpu_blocks(gpu_block_ids)
            logger.debug("retired %d offloaded KV blocks", len(gpu_block_ids))

    def shutdown(self) -> None:
        self._done.put(None)
        self._poller.join()
        check(driver.cuStreamSynchronize(self.stream))
