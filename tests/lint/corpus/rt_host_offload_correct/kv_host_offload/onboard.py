# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import queue
import threading
from dataclasses import dataclass
from typing import Callable, List, Optional

from cuda.bindings import runtime as cudart

from tensorrt_llm.logger import logger

from .constants import ONBOARD_QUEUE_DEPTH
from .manager import KVCacheHostOffloadManager
from .rt_utils import CUDA_CHECK


@dataclass
class OnboardTask:
    request_id: int
    host_block_ids: List[int]
    # Device blocks taken from the primary pool's free list.
    device_block_ids: List[int]


class OnboardWorker:
    """Moves host-tier blocks back to the device ahead of scheduling, off the executor thread."""

    def __init__(self, manager: KVCacheHostOffloadManager,
                 on_ready: Callable[[int], None]):
        self._mgr = manager
        self._on_ready = on_ready
        self._tasks: "queue.Queue[Optional[OnboardTask]]" = queue.Queue(maxsize=ONBOARD_QUEUE_DEPTH)
        self._thread = threading.Thread(target=self._run, name="kv_onboard", daemon=True)
        self._thread.start()

    def submit(self, task: OnboardTask) -> None:
        self._tasks.put(task)

    def close(self) -> None:
        self._tasks.put(None)
        self._thread.join()

    def _run(self) -> None:
        mgr = self._mgr
        CUDA_CHECK(cudart.cudaSetDevice(mgr.device_id))
        while True:
            task = self._tasks.get()
            if task is None:
                break
            # host blocks may still be being filled by a recent offload batch
            CUDA_CHECK(cudart.cudaStreamWaitEvent(mgr.onboard_stream, mgr.offload_done, 0))
            CUDA_CHECK(cudart.cudaStreamWaitEvent(mgr.onboard_stream, mgr.forward_done, 0))
            for host_id, dev_id in zip(task.host_block_ids, task.device_block_ids):
                CUDA_CHECK(cudart.cudaMemcpyAsync(mgr.device_ptr(dev_id), mgr.host_pool.ptr(host_id), mgr.block_bytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, mgr.onboard_stream))
            CUDA_CHECK(cudart.cudaStreamSynchronize(mgr.onboard_stream))
            mgr.host_pool.release(task.host_block_ids)
            logger.debug(f"onboarded {len(task.device_block_ids)} blocks for request {task.request_id}")
            self._on_ready(task.request_id)
