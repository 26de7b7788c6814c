import torch
from deepspeed.accelerator import get_accelerator


class GradPartitionBuffers:
    """Flat fp32 gradient partitions living in (optionally pinned) host memory.

    Each rank owns one flat buffer per param group; individual parameters map to
    a contiguous slot inside it so the CPU optimizer sees a single tensor.
    """

    def __init__(self, group_numels, pin_memory=True):
        self._buffers = []
        for numel in group_numels:
            buf = torch.zeros(numel, dtype=torch.float32, device="cpu")
            if pin_memory:
                buf = get_accelerator().pin_memory(buf)
            self._buffers.append(buf)
        self._slots = {}

    def register(self, param_id, group_idx, offset, numel):
        self._slots[param_id] = (group_idx, offset, numel)

    def slot(self, param_id):
        group_idx, offset, numel = self._slots[param_id]
        return self._buffers[group_idx].narrow(0, offset, numel)

    def group(self, group_idx):
        return self._buffers[group_idx]

    def zero_(self):
        for buf in self._buffers:
            buf.zero_()

    def __len__(self):
        return len(self._buffers)
