"""Copies each decoder layer's KV to host while the prefill is still running the later layers.
A post-hook is registered on every decoder layer; it marks the end of the layer's compute and
issues the layer's copies on a side stream so that they overlap with the next layers."""

from typing import List

import torch

from prompt_cache.snapshot import PromptSnapshot


class LayerwiseSnapshotter:
    def __init__(self, decoder_layers: torch.nn.ModuleList, prompt_len: int):
        self.decoder_layers = decoder_layers
        self.stream = torch.cuda.Stream()
        self.layer_events: List[torch.cuda.Event] = [torch.cuda.Event() for _ in decoder_layers]
        self.snapshot = PromptSnapshot(prompt_len)
        self._handles = []

    def _make_hook(self, idx: int):
        def post_hook(module, args, kwargs, output):
            layer_cache = kwargs["past_key_values"].layers[idx]
            keys, values = layer_cache.keys, layer_cache.values
            host_k = torch.empty(keys.shape, dtype=keys.dtype, pin_memory=True)
            host_v = torch.empty(values.shape, dtype=values.dtype, pin_memory=True)
            # the layer has appended its keys/values on the compute stream by now
            self.layer_events[idx].record()
            self.stream.wait_event(self.layer_events[idx])
            with torch.cuda.stream(self.stream):
                host_k.copy_(keys, non_blocking=True)
                host_v.copy_(values, non_blocking=True)
            keys.record_stream(self.stream)
            values.record_stream(self.stream)
            self.snapshot.layers[idx] = (host_k, host_v)

        return post_hook

    def __enter__(self) -> "LayerwiseSnapshotter":
        for idx, layer in enumerate(self.decoder_layers):
            self._handles.append(layer.register_forward_hook(self._make_hook(idx), with_kwargs=True))
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.snapshot.done.record(self.stream)
        finally:
            for handle in self._handles:
                handle.remove()
            self._handles.clear()
