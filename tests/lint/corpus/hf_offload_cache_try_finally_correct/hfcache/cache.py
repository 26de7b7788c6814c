"""transformers-style OffloadedCache: all layers live in pinned CPU memory, two device slots
are double-buffered, the next layer is prefetched on a side stream."""

import logging

import torch

logger = logging.getLogger(__name__)


class DoubleBufferedOffloadedCache:
    def __init__(self, num_layers, shape):
        self.device_slots = [torch.zeros(shape, dtype=torch.float16, device="cuda") for _ in range(2)]
        self.cpu_layers = [torch.empty(shape, dtype=torch.float16, pin_memory=True) for _ in range(num_layers)]
        self.prefetch_stream = torch.cuda.Stream()

    def prefetch_layer(self, layer_idx):
        slot = self.device_slots[layer_idx % 2]
        # The slot still holds layer_idx - 2, which kernels on the compute stream may be reading.
        self.prefetch_stream.wait_stream(torch.cuda.current_stream())
        try:
            with torch.cuda.stream(self.prefetch_stream):
                slot.copy_(self.cpu_layers[layer_idx], non_blocking=True)
        except RuntimeError:
            logger.exception("prefetch of layer %d failed", layer_idx)
            raise

    def layer(self, layer_idx):
        torch.cuda.current_stream().wait_stream(self.prefetch_stream)
        return self.device_slots[layer_idx % 2]

    def write_back_and_save(self, layer_idx, path):
        slot = self.device_slots[layer_idx % 2]
        self.prefetch_stream.wait_stream(torch.cuda.current_stream())
        try:
            with torch.cuda.stream(self.prefetch_stream):
                self.cpu_layers[layer_idx].copy_(slot, non_blocking=True)
        finally:
            self.prefetch_stream.synchronize()
        torch.save(self.cpu_layers[layer_idx], path)
