# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Pinned staging buffers and the side stream used to drain device state."""

import threading
from typing import List

import torch

from .constants import PINNED_STAGING_BUFFERS


class StagingArea:

    def __init__(self, max_numel: int, dtype: torch.dtype = torch.bfloat16) -> None:
        self.stream = torch.cuda.Stream()
        self.buffers: List[torch.Tensor] = [
            torch.empty(max_numel, dtype=dtype, pin_memory=True) for _ in range(PINNED_STAGING_BUFFERS)
        ]
        self._slots = threading.Semaphore(PINNED_STAGING_BUFFERS)
        self._free = list(range(PINNED_STAGING_BUFFERS))
        self._lock = threading.Lock()

    def acquire(self, numel: int) -> torch.Tensor:
        self._slots.acquire()
        with self._lock:
            idx = self._free.pop()
        return self.buffers[idx].narrow(0, 0, numel)

    def release(self, buf: torch.Tensor) -> None:
        with self._lock:
            for idx, base in enumerate(self.buffers):
                if base.data_ptr() == buf.data_ptr():
                    self._free.append(idx)
                    break
        self._slots.release()
