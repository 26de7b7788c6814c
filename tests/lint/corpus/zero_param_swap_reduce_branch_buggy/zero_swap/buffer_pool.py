# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Pool of page-locked host buffers used as NVMe staging area."""

import logging
from typing import List, Optional

import torch
from deepspeed.accelerator import get_accelerator

from .constants import AIO_ALIGNED_BYTES

logger = logging.getLogger(__name__)


def _aligned_numel(numel: int, element_size: int) -> int:
    align = AIO_ALIGNED_BYTES // element_size
    remainder = numel % align
    return numel if remainder == 0 else numel + align - remainder


class PinnedSwapBufferPool:

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        self.dtype = dtype
        self.numel = _aligned_numel(numel, torch.tensor([], dtype=dtype).element_size())
        self._buffers: List[torch.Tensor] = [
            get_accelerator().pin_memory(torch.empty(self.numel, dtype=dtype)) for _ in range(count)
        ]
        self._free: List[int] = list(range(count))
        logger.debug("allocated %d pinned swap buffers of %d elements", count, self.numel)

    def available(self) -> int:
        return len(self._free)

    def acquire(self, numel: int) -> Optional[torch.Tensor]:
        if not self._free or numel > self.numel:
            return None
        idx = self._free.pop()
        return self._buffers[idx].narrow(0, 0, numel)

    def release(self, buffer: torch.Tensor) -> None:
        for idx, buf in enumerate(self._buffers):
            if buf.data_ptr() == buffer.data_ptr():
                self._free.append(idx)
                return
        raise ValueError("buffer does not belong to this pool")
