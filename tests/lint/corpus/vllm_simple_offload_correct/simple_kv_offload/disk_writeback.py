# SPDX-License-Identifier: Apache-2.0
"""Write-back of stored CPU blocks to a local file."""
from __future__ import annotations

import os
import queue
import threading

import torch

from vllm.logger import init_logger

logger = init_logger(__name__)


class DiskWriteback:

    def __init__(self, path: str, cpu_caches: dict[str, torch.Tensor]):
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        self._tensors = list(cpu_caches.values())
        self._block_bytes = sum(t.stride(0) * t.element_size()
                                for t in self._tensors)
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def submit(self, cpu_block_ids: list[int],
               ready: torch.cuda.Event | None) -> None:
        self._queue.put((list(cpu_block_ids), ready))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            cpu_block_ids, ready = item
            if ready is not None:
                ready.synchronize()
            for block_id in cpu_block_ids:
                offset = block_id * self._block_bytes
                for tensor in self._tensors:
                    view = tensor[block_id].numpy()
                    os.pwrite(self._fd, view, offset)
                    offset += view.nbytes
            logger.info("wrote back %d CPU blocks", len(cpu_block_ids))
