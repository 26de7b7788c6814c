# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import threading
from typing import List

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .utils import aligned_numel


class PinnedSwapBufferPool(object):

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        self.numel = aligned_numel(numel)
        self.buffers: List[torch.Tensor] = [
            get_accelerator().pin_memory(torch.empty(self.numel, dtype=dtype, device="cpu")) for _ in range(count)
        ]
        self.free_index = list(range(count))
        self._lock = threading.Lock()
        logger.info(f"PinnedSwapBufferPool: {count} buffers of {self.numel} elements")

    def get(self) -> torch.Tensor:
        with self._lock:
            assert self.free_index, "swap buffer pool exhausted"
            return self.buffers[self.free_index.pop()]

    def release(self, buffers: List[torch.Tensor]) -> None:
        with self._lock:
            for buf in buffers:
                for i, candidate in enumerate(self.buffers):
                    if candidate.data_ptr() == buf.data_ptr():
                        self.free_index.append(i)
