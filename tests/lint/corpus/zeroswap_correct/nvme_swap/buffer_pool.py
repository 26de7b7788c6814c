# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import threading
from typing import List

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger


class PinnedSwapBufferPool:
    """Fixed set of page-locked fp32 buffers shared by swap-out requests."""

    def __init__(self, count: int, numel: int, dtype=torch.float32):
        self.numel = numel
        self.buffers: List[torch.Tensor] = [
            get_accelerator().pin_memory(torch.empty(numel, dtype=dtype, device="cpu")) for _ in range(count)
        ]
        self._free = list(range(count))
        self._cond = threading.Condition()
        logger.info(f"PinnedSwapBufferPool: {count} buffers x {numel} elements")

    def acquire(self) -> int:
        with self._cond:
            while not self._free:
                self._cond.wait()
            return self._free.pop()

    def get(self, index: int) -> torch.Tensor:
        return self.buffers[index]

    def release(self, index: int) -> None:
        with self._cond:
            self._free.append(index)
            self._cond.notify()
