# SPDX-License-Identifier: Apache-2.0
import logging
import queue
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Sequence

import cuda.bindings.driver as drv
import torch

from ._common import EVENT_POOL_SIZE, NUM_COPY_WORKERS, CopyTask, _unwrap
from ._copy import copy_gpu_to_host, copy_host_to_gpu
from ._host_pool import HostBlockPool

logger = logging.getLogger("tensorrt_llm")


class KVCacheHostOffloadManager:
    """Moves evicted KV blocks to host memory and onboards them back.

    Copies run on a dedicated non-blocking stream from worker threads so the
    executor loop never blocks on PCIe traffic.
    """

    def __init__(
        self,
        gpu_pool_base: int,
        block_bytes: int,
        num_host_blocks: int,
        execution_stream: torch.cuda.Stream,
    ):
        self._gpu_pool_base = gpu_pool_base
        self._block_bytes = block_bytes
        self._execution_stream = execution_stream
        self._host_pool = HostBlockPool(num_host_blocks, block_bytes)
        self._executor = ThreadPoolExecutor(
            max_workers=NUM_COPY_WORKERS, thread_name_prefix="kv_offload"
        )
        self._streams: "queue.Queue[drv.CUstream]" = queue.Queue()
        for _ in range(NUM_COPY_WORKERS):
            flags = drv.CUstream_flags.CU_STREAM_NON_BLOCKING
            self._streams.put(_unwrap(drv.cuStreamCreate(flags)))
        self._events: "queue.Queue[drv.CUevent]" = queue.Queue()
        for _ in range(EVENT_POOL_SIZE):
            flags = drv.CUevent_flags.CU_EVENT_DISABLE_TIMING
            self._events.put(_unwrap(drv.cuEventCreate(flags)))

    def _gpu_address(self, block_id: int) -> int:
        return self._gpu_pool_base + block_id * self._block_bytes

    def _wait_for_execution(self, stream: drv.CUstream) -> None:
        event = self._events.get()
        try:
            producer = drv.CUstream(self._execution_stream.cuda_stream)
            _unwrap(drv.cuEventRecord(event, producer))
            _unwrap(drv.cuStreamWaitEvent(stream, event, 0))
        finally:
            self._events.put(event)

    def offload(self, gpu_block_ids: Sequence[int]) -> "Future[list[int]]":
        return self._executor.submit(self._offload_task, list(gpu_block_ids))

    def onboard(
        self, host_block_ids: Sequence[int], gpu_block_ids: Sequence[int]
    ) -> "Future[None]":
        return self._executor.submit(
            self._onboard_task, list(host_block_ids), list(gpu_block_ids)
        )

    def _offload_task(self, gpu_block_ids: list[int]) -> list[int]:
        host_block_ids = [self._host_pool.allocate() for _ in gpu_block_ids]
        tasks = [
            CopyTask(self._host_pool.address(h), self._gpu_address(g))
            for h, g in zip(host_block_ids, gpu_block_ids)
        ]
        stream = self._streams.get()
        try:
            self._wait_for_execution(stream)
            copy_gpu_to_host(tasks, self._block_bytes, stream)
            _unwrap(drv.cuStreamSynchronize(stream))
        finally:
            self._streams.put(stream)
        logger.debug("offloaded %d KV blocks to host", len(tasks))
        return host_block_ids

    def _onboard_task(self, host_block_ids: list[int], gpu_block_ids: list[int]) -> None:
        tasks = [
            CopyTask(self._gpu_address(g), self._host_pool.address(h))
            for h, g in zip(host_block_ids, gpu_block_ids)
        ]
        stream = self._streams.get()
        try:
            self._wait_for_execution(stream)
            copy_host_to_gpu(tasks, self._block_bytes, stream)
            _unwrap(drv.cuStreamSynchronize(stream))
        finally:
            self._streams.put(stream)
        for h in host_block_ids:
            self._host_pool.release(h)
        logger.debug("onboarded %d KV blocks", len(tasks))

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
        while not self._streams.empty():
            _unwrap(drv.cuStreamDestroy(self._streams.get()))
        self._host_pool.close()
