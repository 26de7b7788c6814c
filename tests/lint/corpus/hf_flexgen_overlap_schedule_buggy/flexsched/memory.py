"""Host and device homes of the FlexGen-style schedule, and its ``general_copy`` helper: one
copy between any two tensors, issued on whatever stream is current at the call, in either
direction (the caller's arguments decide which). Bug: see flexsched/schedule.py."""

import torch


def general_copy(dst, dst_indices, src, src_indices):
    dst_view = dst[dst_indices] if dst_indices is not None else dst
    src_view = src[src_indices] if src_indices is not None else src
    # expect: KVG001, KVG004
    dst_view.copy_(src_view, non_blocking=True)


class CacheHome:
    """One layer's K/V in pinned host memory: (max_len, batch * heads, head_dim)."""

    def __init__(self, max_len, rows, head_dim, dtype):
        self.k = torch.empty((max_len, rows, head_dim), dtype=dtype, pin_memory=True)
        self.v = torch.empty((max_len, rows, head_dim), dtype=dtype, pin_memory=True)


class DeviceKVBuffers:
    """Two device working buffers; layer j computes in buffer j % 2."""

    def __init__(self, max_len, rows, head_dim, dtype, device):
        self.k = [torch.empty((max_len, rows, head_dim), dtype=dtype, device=device) for _ in range(2)]
        self.v = [torch.empty((max_len, rows, head_dim), dtype=dtype, device=device) for _ in range(2)]

    def slot(self, layer_id):
        return self.k[layer_id % 2], self.v[layer_id % 2]
