"""The hooks that stream layer weights through two device slots."""

import torch

from .flat import bind_views, flatten_to_pinned


class LayerStreamer:
    def __init__(self, layers, device, dtype=torch.float16, num_slots=2):
        self.layers = list(layers)
        self.device = torch.device(device)
        self.num_slots = num_slots
        self.host_flat, self.shapes = [], []
        for layer in self.layers:
            host, shapes = flatten_to_pinned(layer, dtype)
            self.host_flat.append(host)
            self.shapes.append(shapes)
        slot_numel = max(h.numel() for h in self.host_flat)
        self.slots = [torch.empty(slot_numel, dtype=dtype, device=self.device) for _ in range(num_slots)]
        self.load_stream = torch.cuda.Stream(self.device)
        self.loaded = [torch.cuda.Event() for _ in self.layers]
        self.slot_free = [None] * num_slots
        self._handles = []
        for idx, layer in enumerate(self.layers):
            self._handles.append(layer.register_forward_pre_hook(self._make_pre_hook(idx)))

    def slot_of(self, idx):
        return idx % self.num_slots

    def prefetch(self, idx):
        if idx >= len(self.layers):
            return
        slot = self.slot_of(idx)
        numel = self.host_flat[idx].numel()
        if self.slot_free[slot] is not None:
            # the previous user of this slot must be done with it
            self.load_stream.wait_event(self.slot_free[slot])
        with torch.cuda.stream(self.load_stream):
            # expect: KVG004
            self.slots[slot][:numel].copy_(self.host_flat[idx], non_blocking=True)
            self.loaded[idx].record(self.load_stream)

    def _make_pre_hook(self, idx):
        def pre_hook(module, args):
            slot = self.slot_of(idx)
            compute = torch.cuda.current_stream(self.device)
            compute.wait_event(self.loaded[idx])
            bind_views(module, self.slots[slot], self.shapes[idx])
            # this layer is the slot's user from here on: release the slot's previous claim
            self.slot_free[slot] = compute.record_event()
            self.prefetch(idx + 1)
        return pre_hook

    def remove(self):
        for handle in self._handles:
            handle.remove()
