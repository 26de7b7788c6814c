"""The ring of device flat buffers. ``prefetch(i)`` copies layer i's flat weights from its pinned
host buffer into ring slot ``i % buffer_count``; ``acquire(i)`` makes the compute stream wait for
that copy and returns views of the slot shaped like the layer's parameters."""

import torch
from deepspeed.accelerator import get_accelerator

from .config import OffloadParamConfig


class ParamRing:
    def __init__(self, layer_shapes, host_flats, config: OffloadParamConfig, dtype=torch.float16):
        self.layer_shapes = layer_shapes  # per layer: list of (name, shape)
        self.host_flats = host_flats  # per layer: pinned 1-D tensor
        self.config = config
        device = get_accelerator().current_device_name()
        max_numel = max(t.numel() for t in host_flats)
        assert max_numel <= config.buffer_size
        self.slots = [torch.empty(max_numel, dtype=dtype, device=device) for _ in range(config.buffer_count)]
        self.slot_layer = [None] * config.buffer_count
        self.prefetch_stream = get_accelerator().Stream()
        self.slot_filled = [get_accelerator().Event() for _ in range(config.buffer_count)]
        # recorded on the compute stream after the last kernel that reads a slot
        self.slot_released = [get_accelerator().Event() for _ in range(config.buffer_count)]

    def _slot(self, layer_id):
        return layer_id % self.config.buffer_count

    def prefetch(self, layer_id):
        slot = self._slot(layer_id)
        if self.slot_layer[slot] == layer_id:
            return
        # the layer that last used this slot may still be running on the compute stream
        self.prefetch_stream.wait_event(self.slot_released[slot])
        host = self.host_flats[layer_id]
        with get_accelerator().stream(self.prefetch_stream):
            self.slots[slot].narrow(0, 0, host.numel()).copy_(host, non_blocking=True)
            self.slot_filled[slot].record()
        self.slot_layer[slot] = layer_id

    def acquire(self, layer_id):
        slot = self._slot(layer_id)
        if self.slot_layer[slot] != layer_id:
            self.prefetch(layer_id)
        get_accelerator().current_stream().wait_event(self.slot_filled[slot])
        views, offset = {}, 0
        for name, shape in self.layer_shapes[layer_id]:
            numel = shape.numel()
            views[name] = self.slots[slot].narrow(0, offset, numel).view(shape)
            offset += numel
        return views

    def release(self, layer_id):
        """Called once the layer's kernels have been queued on the compute stream."""
        self.slot_released[self._slot(layer_id)].record(get_accelerator().current_stream())
