# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import threading
from typing import List, Tuple

import torch

from deepspeed.accelerator import get_accelerator

from .constants import INVALID_BUFFER_INDEX


class SwapBufferPool:
    """Fixed set of pinned, flat host buffers shared by the swap-out path."""

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        self.numel = numel
        self.buffers: List[torch.Tensor] = [
            get_accelerator().pin_memory(torch.empty(numel, dtype=dtype)) for _ in range(count)
        ]
        self._free = list(range(count))
        self._cond = threading.Condition()

    def acquire(self, numel: int) -> Tuple[int, torch.Tensor]:
        assert numel <= self.numel, f"tensor of {numel} elements does not fit in a swap buffer"
        with self._cond:
            while not self._free:
                self._cond.wait()
            index = self._free.pop()
        return index, self.buffers[index]

    def release(self, index: int) -> None:
        if index == INVALID_BUFFER_INDEX:
            return
        with self._cond:
            self._free.append(index)
            self._cond.notify()
