# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import queue
from typing import Tuple

import torch


class PinnedTokenRing:
    """Fixed set of page-locked int64 buffers; a slot is reused only after it is released."""

    def __init__(self, num_slots: int, max_batch_size: int):
        self._buffers = [torch.empty(max_batch_size, dtype=torch.int64, pin_memory=True) for _ in range(num_slots)]
        self._free: "queue.Queue[int]" = queue.Queue()
        for idx in range(num_slots):
            self._free.put(idx)

    def acquire(self) -> Tuple[int, torch.Tensor]:
        slot = self._free.get()
        return slot, self._buffers[slot]

    def release(self, slot: int) -> None:
        self._free.put(slot)
