"""Pinned host slots for checkpointed activations, reused across micro-batches."""

import torch


class PinnedActivationPool:
    def __init__(self, max_numel, num_slots, dtype=torch.float16):
        self.slots = [torch.empty(max_numel, dtype=dtype, pin_memory=True) for _ in range(num_slots)]
        self.free = list(range(num_slots))

    def acquire(self, like):
        idx = self.free.pop()
        view = self.slots[idx].narrow(0, 0, like.numel()).view(like.shape)
        return idx, view

    def release(self, ids):
        self.free.extend(ids)
