"""Copies each decoder layer's KV to host while the prefill is still running the later layers.
A pre-hook and a post-hook are registered on every decoder layer; the post-hook issues the
layer's copies on a side stream so that they overlap with the next layers' compute."""

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

    def _make_hooks(self, idx: int):
        def pre_hook(module, args, kwargs):
            # mark where this layer starts on the compute stream
            self.layer_events[idx].record()

        def post_hook(module, args, kwargs, output):
            layer_cache = kwargs["past_key_values"].layers[idx]
            keys, values = layer_cache.keys, layer_cache.values
            host_k = torch.empty(keys.shape, dtype=keys.dtype, pin_memory=True)
            host_v = torch.empty(values.shape, dtype=values.dtype, pin_memory=True)
            self.stream.wait_event(self.layer_events[idx])
            with torch.cuda.stream(self.stream):
                # expect: KVG001
                host_k.copy_(keys, non_blocking=True)
                # expect: KVG001
                host_v.copy_(values, non_blocking=True)
            keys.record_stream(self.stream)
            values.record_stream(self.stream)
            self.snapshot.layers[idx] = (host_k, host_v)

        return pre_hook, post_hook

    def __enter__(self) -> "LayerwiseSnapshotter":
        for idx, layer in enumerate(self.decoder_layers):
            pre_hook, post_hook = self._make_hooks(idx)
            self._handles.append(layer.register_forward_pre_hook(pre_hook, with_kwargs=True))
            self._handles.append(layer.register_forward_hook(post_hook, with_kwargs=True))
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.snapshot.done.record(self.stream)
        finally:
            for handle in self._handles:
                handle.remove()
            self._handles.clear()
