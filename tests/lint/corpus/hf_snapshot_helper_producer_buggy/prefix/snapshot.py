"""Prefix snapshots: after a prompt is prefilled, its quantized K/V and scales are copied into
pinned host tensors on a snapshot stream, so later requests with the same prompt can restore
them. Bug: ``take`` orders the snapshot stream behind the compute stream first and only then
calls the cache helpers ``refresh_scales`` and ``flush_pending``, whose ``out=`` and
``index_copy_`` writes are queued on the compute stream after the barrier, so the snapshot can
copy scales and keys those writes have not reached yet (KVG001 at the scales copy and at the
key/value copies)."""

import torch

from prefix.static_cache import refresh_scales


class PrefixSnapshotter:
    def __init__(self, cache):
        self.cache = cache
        self.stream = torch.cuda.Stream()
        self.host_keys = [torch.empty_like(k, device="cpu").pin_memory() for k in cache.key_cache]
        self.host_values = [torch.empty_like(v, device="cpu").pin_memory() for v in cache.value_cache]
        self.host_scales = torch.empty_like(cache.scales, device="cpu").pin_memory()
        self.done = torch.cuda.Event()

    def take(self, recent_keys, recent_values):
        self.stream.wait_stream(torch.cuda.current_stream())
        refresh_scales(self.cache, recent_keys, recent_values)
        self.cache.flush_pending()
        with torch.cuda.stream(self.stream):
            # expect: KVG001
            self.host_scales.copy_(self.cache.scales, non_blocking=True)
            for layer_idx in range(self.cache.num_layers):
                # expect: KVG001
                self.host_keys[layer_idx].copy_(self.cache.key_cache[layer_idx], non_blocking=True)
                # expect: KVG001
                self.host_values[layer_idx].copy_(self.cache.value_cache[layer_idx], non_blocking=True)
            self.done.record()
        # the cache is not written again before the snapshot has read it
        torch.cuda.current_stream().wait_event(self.done)

    def wait(self):
        self.done.synchronize()
        return self.host_keys, self.host_values, self.host_scales
