"""Pinned staging slots shared by the sender and receiver."""

import queue
from dataclasses import dataclass, field

import torch


@dataclass
class StagingSlot:
    index: int
    buffer: torch.Tensor  # [max_blocks, block_size, heads, dim], pinned
    ready: torch.cuda.Event = field(default_factory=torch.cuda.Event)


class StagingPool:
    def __init__(self, num_slots, max_blocks, block_shape, dtype=torch.float16):
        self._free = queue.Queue()
        for i in range(num_slots):
            buf = torch.empty((max_blocks, *block_shape), dtype=dtype, pin_memory=True)
            self._free.put(StagingSlot(i, buf))

    def acquire(self, timeout=None):
        return self._free.get(timeout=timeout)

    def release(self, slot):
        self._free.put(slot)
