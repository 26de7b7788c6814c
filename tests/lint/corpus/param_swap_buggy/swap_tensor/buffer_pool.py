# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import threading
from typing import List

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger


class PinnedSwapBufferPool:
    """Fixed pool of page-locked staging buffers shared by swap-out and swap-in."""

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        self.numel = numel
        self._lock = threading.Lock()
        self._free: List[torch.Tensor] = [
            get_accelerator().pin_memory(torch.empty(numel, dtype=dtype)) for _ in range(count)
        ]
        logger.info(f"swap buffer pool: {count} x {numel} {dtype}")

    def acquire(self) -> torch.Tensor:
        with self._lock:
            if not self._free:
                raise RuntimeError("swap buffer pool exhausted; increase buffer_count")
            return self._free.pop()

    def release(self, buffers: List[torch.Tensor]) -> None:
        with self._lock:
            self._free.extend(buffers)

    def available(self) -> int:
        with self._lock:
            return len(self._free)
