# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import logging
import threading
from typing import List

import torch
from deepspeed.accelerator import get_accelerator

from .constants import SWAP_ALIGNMENT_NUMEL, SWAP_BUFFER_COUNT, SWAP_BUFFER_NUMEL

logger = logging.getLogger(__name__)


def _aligned(numel: int) -> int:
    rem = numel % SWAP_ALIGNMENT_NUMEL
    return numel if rem == 0 else numel + SWAP_ALIGNMENT_NUMEL - rem


class SwapBuffer:

    def __init__(self, index: int, numel: int, dtype: torch.dtype):
        self.index = index
        self.buffer = get_accelerator().pin_memory(torch.empty(numel, dtype=dtype, device="cpu"))
        self.offset = 0

    def allocate(self, numel: int) -> torch.Tensor:
        start = self.offset
        if start + numel > self.buffer.numel():
            raise RuntimeError(f"swap buffer {self.index} exhausted: {start}+{numel} > {self.buffer.numel()}")
        self.offset = start + _aligned(numel)
        return self.buffer.narrow(0, start, numel)

    def reset(self) -> None:
        self.offset = 0


class PinnedSwapBufferPool:
    """Fixed set of pinned staging buffers plus the stream that fills them."""

    def __init__(self, dtype: torch.dtype, count: int = SWAP_BUFFER_COUNT, numel: int = SWAP_BUFFER_NUMEL):
        self._buffers: List[SwapBuffer] = [SwapBuffer(i, numel, dtype) for i in range(count)]
        self._free: List[int] = list(range(count))
        self._cond = threading.Condition()
        self.swap_stream = get_accelerator().Stream()
        logger.info(f"allocated {count} pinned swap buffers of {numel} elements ({dtype})")

    def acquire(self) -> SwapBuffer:
        with self._cond:
            while not self._free:
                self._cond.wait()
            buf = self._buffers[self._free.pop()]
        buf.reset()
        return buf

    def release(self, buf: SwapBuffer) -> None:
        with self._cond:
            self._free.append(buf.index)
            self._cond.notify()
