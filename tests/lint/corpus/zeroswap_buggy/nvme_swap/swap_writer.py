# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, List

from .buffer_pool import PinnedSwapBufferPool


@dataclass
class SwapOutRequest:
    path: str
    buffer_index: int
    numel: int
    staged_event: Any


class AsyncSwapWriter:
    """Persists staged pinned buffers to the swap folder on worker threads."""

    def __init__(self, pool: PinnedSwapBufferPool, thread_count: int):
        self.pool = pool
        self._executor = ThreadPoolExecutor(max_workers=thread_count, thread_name_prefix="ds_swap_out")
        self._pending: List[Future] = []

    def submit(self, request: SwapOutRequest) -> Future:
        future = self._executor.submit(self._write, request)
        self._pending.append(future)
        return future

    def _write(self, request: SwapOutRequest) -> int:
        request.staged_event.synchronize()
        buffer = self.pool.get(request.buffer_index)
        try:
            with open(request.path, "wb") as fh:
                # expect: KVG003
                fh.write(buffer.narrow(0, 0, request.numel).numpy().tobytes())
                fh.flush()
                os.fsync(fh.fileno())
        finally:
            self.pool.release(request.buffer_index)
        return request.numel

    def wait(self) -> int:
        done = sum(f.result() for f in self._pending)
        self._pending.clear()
        return done
