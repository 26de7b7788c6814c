"""Device buffers onloaded weights land in: ``num_slots`` sets, one per in-flight layer, made
once at startup so their addresses never change under a captured graph."""

import torch


class StaticDeviceBuffers:
    def __init__(self, num_slots):
        self.num_slots = num_slots
        self._slots = [dict() for _ in range(num_slots)]

    def reserve(self, slot, name, like):
        current = self._slots[slot].get(name)
        if current is None or current.numel() < like.numel():
            self._slots[slot][name] = torch.empty(like.numel(), dtype=like.dtype, device="cuda")

    def view(self, slot, name, like):
        return self._slots[slot][name][: like.numel()].view(like.shape)
