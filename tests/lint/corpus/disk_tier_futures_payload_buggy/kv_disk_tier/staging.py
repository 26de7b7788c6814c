import torch

_ALIGN = 4096


def aligned_pinned(num_slots: int, block_bytes: int) -> torch.Tensor:
    """A [num_slots, block_bytes] pinned buffer whose base is O_DIRECT aligned."""
    raw = torch.empty(num_slots * block_bytes + _ALIGN, dtype=torch.int8, pin_memory=True)
    offset = -raw.data_ptr() % _ALIGN
    return raw[offset:offset + num_slots * block_bytes].view(num_slots, block_bytes)


class StagingSlots:
    def __init__(self, gpu_caches: dict[str, torch.Tensor], num_slots: int):
        self.num_slots = num_slots
        self.names = list(gpu_caches)
        self.buffers = {n: aligned_pinned(num_slots, t.stride(0) * t.element_size())
                        for n, t in gpu_caches.items()}
        self.slot_bytes = sum(b.shape[1] for b in self.buffers.values())
