import torch


class StagingPool:
    """Device buffers for reloaded activations, reused every other group so that backward does
    not fragment the caching allocator with short-lived activation-sized blocks."""

    def __init__(self, num_slots=2, device="cuda"):
        self.num_slots = num_slots
        self.device = device
        self._buffers = {}  # (slot, index) -> flat device buffer

    def slot_of(self, group_id):
        return group_id % self.num_slots

    def get(self, group_id, index, shape, dtype):
        key = (self.slot_of(group_id), index)
        numel = 1
        for d in shape:
            numel *= d
        buf = self._buffers.get(key)
        if buf is None or buf.numel() < numel or buf.dtype != dtype:
            buf = torch.empty(numel, dtype=dtype, device=self.device)
            self._buffers[key] = buf
        return buf[:numel].view(shape)
