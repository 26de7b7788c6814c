import torch


class OffloadedLayerCache:
    """Keeps one layer's keys and values on the GPU; evicted layers go to pinned host memory."""

    def __init__(self, num_layers, shape, overlap=True):
        self.overlap = overlap
        self.copy_stream = torch.cuda.Stream() if overlap else None
        self.device_kv = [torch.zeros(shape, device="cuda") for _ in range(num_layers)]
        self.host_kv = [torch.empty(shape, pin_memory=True) for _ in range(num_layers)]

    def update(self, layer, new_kv):
        self.device_kv[layer].add_(new_kv)

    def evict(self, layer):
        if self.overlap:
            stream = self.copy_stream
        else:
            stream = torch.cuda.current_stream()
        with torch.cuda.stream(stream):
            # expect: KVG001
            self.host_kv[layer].copy_(self.device_kv[layer], non_blocking=True)
        return stream
