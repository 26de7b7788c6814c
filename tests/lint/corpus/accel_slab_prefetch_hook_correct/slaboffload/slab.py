"""Two device slabs that the offloaded layers take turns running from, and the per-device
transfer streams the prefetches run on."""

import torch

_TRANSFER_STREAMS = {}


def transfer_stream_for(device):
    device = torch.device(device)
    if device not in _TRANSFER_STREAMS:
        _TRANSFER_STREAMS[device] = torch.cuda.Stream(device=device)
    return _TRANSFER_STREAMS[device]


class WeightSlabs:
    def __init__(self, slab_numel, dtype, device):
        self.slabs = [torch.empty(slab_numel, dtype=dtype, device=device) for _ in range(2)]
        self.ready = [torch.cuda.Event() for _ in range(2)]

    def slot(self, layer_idx):
        return layer_idx % 2
