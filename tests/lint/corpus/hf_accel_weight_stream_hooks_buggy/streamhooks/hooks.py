"""Accelerate-style layerwise weight streaming for generation: every layer's weight lives in
pinned host memory; module hooks bind the layer to one of two device slots and prefetch the
next layer into the other slot on a side stream. A forward hook optionally offloads each
layer's hidden states to host memory (output_hidden_states) on a second side stream.
Bugs: the prefetch overwrites a slot without waiting for the layer that last ran from it,
and the hidden-state offload relies on record_stream, which keeps memory alive but orders
nothing.
"""

import torch


class LayerwiseStreamer:
    def __init__(self, layers, dtype=torch.float16, collect_hidden=False):
        self.layers = list(layers)
        max_numel = max(layer.numel() for layer in self.layers)
        self.host_weights = [torch.empty(l.numel(), dtype=dtype, pin_memory=True) for l in self.layers]
        self.slots = [torch.empty(max_numel, dtype=dtype, device="cuda") for _ in range(2)]
        self.streams = {"prefetch": torch.cuda.Stream(), "offload": torch.cuda.Stream()}
        self.slot_free = [torch.cuda.Event() for _ in range(2)]
        self.loaded = [torch.cuda.Event() for _ in range(len(self.layers))]
        self.collect_hidden = collect_hidden
        self.collected = []
        self.handles = []

    def attach(self):
        for idx, layer in enumerate(self.layers):
            self.handles.append(layer.register_forward_pre_hook(self._make_pre_hook(idx)))
            self.handles.append(layer.register_forward_hook(self._make_post_hook(idx)))

    def prefetch(self, idx):
        slot = self.slots[idx % 2]
        numel = self.layers[idx].numel()
        stream = self.streams["prefetch"]
        # The slot's previous layer ran two hooks ago.
        with torch.cuda.stream(stream):
            # expect: KVG004
            slot.narrow(0, 0, numel).copy_(self.host_weights[idx], non_blocking=True)
            self.loaded[idx].record()

    def _make_pre_hook(self, idx):
        def pre_forward(module, args):
            torch.cuda.current_stream().wait_event(self.loaded[idx])
            module.flat_weight = self.slots[idx % 2].narrow(0, 0, module.numel())
            if idx + 1 < len(self.layers):
                self.prefetch(idx + 1)
        return pre_forward

    def _make_post_hook(self, idx):
        def post_forward(module, args, output):
            self.slot_free[idx % 2].record()
            module.flat_weight = None
            if self.collect_hidden:
                stream = self.streams["offload"]
                with torch.cuda.stream(stream):
                    # expect: KVG001
                    host = output.to("cpu", non_blocking=True)
                output.record_stream(stream)
                self.collected.append(host)
            return output
        return post_forward

    def drain_hidden(self, fh):
        self.streams["offload"].synchronize()
        for host in self.collected:
            fh.write(host.numpy().tobytes())
        self.collected = []
