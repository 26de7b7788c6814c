# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List

from deepspeed.utils import logger

from .buffer_pool import PinnedSwapBuffer, SwapBufferPool


class AsyncStateWriter:
    """Writes staged optimizer state from pinned buffers to swap files."""

    def __init__(self, swap_folder: str, pool: SwapBufferPool, num_threads: int):
        self.swap_folder = swap_folder
        self.pool = pool
        self._executor = ThreadPoolExecutor(max_workers=num_threads, thread_name_prefix="ds_swap_writer")
        self._pending: List[Future] = []
        os.makedirs(swap_folder, exist_ok=True)

    def _state_path(self, param_id: int, key: str) -> str:
        return os.path.join(self.swap_folder, f"param_{param_id}.{key}.tensor.swp")

    def _write_buffer(self, param_id: int, swap_buf: PinnedSwapBuffer, copy_done) -> int:
        written = 0
        copy_done.synchronize()
        for key, view in swap_buf.slices.items():
            with open(self._state_path(param_id, key), "wb") as fd:
                fd.write(view.numpy().tobytes())
            written += view.numel() * view.element_size()
        self.pool.release(swap_buf)
        return written

    def submit(self, param_id: int, swap_buf: PinnedSwapBuffer, copy_done) -> Future:
        future = self._executor.submit(self._write_buffer, param_id, swap_buf, copy_done)
        self._pending.append(future)
        return future

    def wait(self) -> int:
        total = sum(f.result() for f in self._pending)
        self._pending.clear()
        return total

    def shutdown(self) -> None:
        total = self.wait()
        logger.debug(f"AsyncStateWriter flushed {total} bytes before shutdown")
        self._executor.shutdown(wait=True)
