# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import queue
import threading
from dataclasses import dataclass
from typing import Any, Optional

import torch
from deepspeed.utils.logging import logger

from .buffer_pool import SwapBufferPool
from .constants import SWAP_WRITER_THREAD_NAME


@dataclass
class SwapOutRequest:
    path: str
    buffer: torch.Tensor
    event: Any


def write_pinned_buffer(path: str, buffer: torch.Tensor) -> int:
    raw = buffer.view(torch.uint8).numpy()
    with open(path, "wb", buffering=0) as fh:
        # expect: KVG003
        return fh.write(memoryview(raw))


class AsyncSwapWriter(object):

    def __init__(self, buffer_pool: SwapBufferPool, queue_depth: int):
        self.buffer_pool = buffer_pool
        self.requests: "queue.Queue[Optional[SwapOutRequest]]" = queue.Queue(maxsize=queue_depth)
        self.pending_writes = 0
        self._thread = threading.Thread(target=self._run, name=SWAP_WRITER_THREAD_NAME, daemon=True)
        self._thread.start()

    def submit(self, request: SwapOutRequest) -> None:
        self.pending_writes += 1
        self.requests.put(request)

    def _run(self) -> None:
        while True:
            request = self.requests.get()
            if request is None:
                self.requests.task_done()
                return
            try:
                request.event.synchronize()
                nbytes = write_pinned_buffer(request.path, request.buffer)
                logger.debug(f"swap out {request.path}: {nbytes} bytes")
            finally:
                self.buffer_pool.release(request.buffer)
                self.requests.task_done()

    def synchronize_writes(self) -> None:
        self.requests.join()
        self.pending_writes = 0

    def close(self) -> None:
        self.requests.put(None)
        self._thread.join()
