# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Recycled CUDA events: creating an event per transfer per iteration shows up in host
profiles, so the transfer paths borrow them from a pool."""

import collections
from contextlib import contextmanager

import torch


class CudaEventPool:

    def __init__(self, initial=16):
        self._free = collections.deque(torch.cuda.Event() for _ in range(initial))

    def acquire(self) -> torch.cuda.Event:
        return self._free.popleft() if self._free else torch.cuda.Event()

    def release(self, event: torch.cuda.Event) -> None:
        self._free.append(event)

    @contextmanager
    def borrowed(self):
        event = self.acquire()
        try:
            yield event
        finally:
            self.release(event)
