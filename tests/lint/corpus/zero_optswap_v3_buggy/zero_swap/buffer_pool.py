# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import threading
from typing import Dict, List

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .constants import AIO_ALIGNED_BYTES


def aligned_numel(numel: int, element_size: int) -> int:
    align = max(1, AIO_ALIGNED_BYTES // element_size)
    return ((numel + align - 1) // align) * align


class PinnedSwapBuffer:
    """One page-locked host buffer carved into aligned per-state slices."""

    def __init__(self, numel: int, dtype: torch.dtype):
        self.buffer = get_accelerator().pin_memory(torch.empty(numel, dtype=dtype, device="cpu"))
        self.offset = 0
        self.slices: Dict[str, torch.Tensor] = {}

    def insert(self, key: str, numel: int) -> torch.Tensor:
        padded = aligned_numel(numel, self.buffer.element_size())
        if self.offset + padded > self.buffer.numel():
            raise RuntimeError(f"swap buffer overflow: need {self.offset + padded}, have {self.buffer.numel()}")
        view = self.buffer.narrow(0, self.offset, numel)
        self.slices[key] = view
        self.offset += padded
        return view

    def reset(self) -> None:
        self.offset = 0
        self.slices.clear()


class SwapBufferPool:

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        self._free: List[PinnedSwapBuffer] = [PinnedSwapBuffer(numel, dtype) for _ in range(count)]
        self._cv = threading.Condition()
        logger.info(f"SwapBufferPool: {count} pinned buffers x {numel} elements ({dtype})")

    def acquire(self) -> PinnedSwapBuffer:
        with self._cv:
            while not self._free:
                self._cv.wait()
            return self._free.pop()

    def release(self, buf: PinnedSwapBuffer) -> None:
        buf.reset()
        with self._cv:
            self._free.append(buf)
            self._cv.notify()
