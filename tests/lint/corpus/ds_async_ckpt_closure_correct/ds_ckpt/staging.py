# SPDX-License-Identifier: Apache-2.0
"""A pinned staging arena: device tensors are copied into slices of one page-locked buffer so
that the file writer never touches device memory."""

import torch
from deepspeed.accelerator import get_accelerator

ALIGNMENT = 4096


def _align(nbytes: int) -> int:
    return (nbytes + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


class PinnedStagingArena:
    def __init__(self, capacity_bytes: int):
        self.capacity = _align(capacity_bytes)
        self.buffer = get_accelerator().pin_memory(torch.empty(self.capacity, dtype=torch.uint8))
        self.offset = 0

    def reset(self):
        self.offset = 0

    def allocate_like(self, tensor: torch.Tensor) -> torch.Tensor:
        nbytes = tensor.numel() * tensor.element_size()
        if self.offset + nbytes > self.capacity:
            raise RuntimeError(f"staging arena of {self.capacity} bytes is full")
        view = self.buffer[self.offset: self.offset + nbytes].view(tensor.dtype).view(tensor.shape)
        self.offset += _align(nbytes)
        return view
