# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import threading
from typing import List

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils.logging import logger


class SwapBufferPool(object):
    """Fixed-size pinned fp32 buffers shared by swap-out requests."""

    def __init__(self, buffer_count: int, buffer_numel: int):
        self.buffer_numel = buffer_numel
        self.buffers = get_accelerator().pin_memory(torch.zeros(buffer_count * buffer_numel, dtype=torch.float32))
        self.free_buffer_index: List[int] = list(range(buffer_count))
        self._cv = threading.Condition()
        logger.info(f"SwapBufferPool: {buffer_count} pinned buffers of {buffer_numel} elements")

    def allocate(self, numel: int) -> torch.Tensor:
        assert numel <= self.buffer_numel, f"{numel} exceeds swap buffer size {self.buffer_numel}"
        with self._cv:
            while not self.free_buffer_index:
                self._cv.wait()
            index = self.free_buffer_index.pop()
        return self.buffers.narrow(0, index * self.buffer_numel, numel)

    def release(self, buffer: torch.Tensor) -> None:
        index = (buffer.data_ptr() - self.buffers.data_ptr()) // (self.buffers.element_size() * self.buffer_numel)
        with self._cv:
            self.free_buffer_index.append(index)
            self._cv.notify()
