# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping gradient partitions to (NVMe) storage devices.
"""
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List

import torch

from deepspeed.utils import logger

from .buffer_pool import PinnedSwapBufferPool
from .constants import ASYNC_SWAP_OUT_TIMER
from .utils import write_tensor_file


class AsyncPartitionSwapper(object):

    def __init__(self, buffer_pool: PinnedSwapBufferPool, timers=None):
        self.buffer_pool = buffer_pool
        self.timers = timers
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="grad_swap")
        self._inflight: List[Future] = []
        self._pending_events = []

    def swap_out_async(self, buffers: List[torch.Tensor], paths: List[str], copy_done) -> None:
        self._pending_events.append(copy_done)
        fut = self._executor.submit(self._swap_out_worker, buffers, paths)
        self._inflight.append(fut)

    def _swap_out_worker(self, buffers: List[torch.Tensor], paths: List[str]) -> int:
        total = 0
        for buf, path in zip(buffers, paths):
            total += write_tensor_file(path, buf)
        self.buffer_pool.release(buffers)
        return total

    def wait(self) -> None:
        if self.timers:
            self.timers(ASYNC_SWAP_OUT_TIMER).start()
        for event in self._pending_events:
            event.synchronize()
        total = sum(f.result() for f in self._inflight)
        self._inflight.clear()
        self._pending_events.clear()
        if self.timers:
            self.timers(ASYNC_SWAP_OUT_TIMER).stop()
        logger.debug(f"AsyncPartitionSwapper wrote {total} bytes")
