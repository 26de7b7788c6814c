"""An engine step whose forward runs on the engine's own forward stream; the KV written by the
forward is then offloaded to pinned memory on an offload stream. The ready event is recorded
on the thread's current stream, which the forward never ran on, so waiting on it orders the
offload behind nothing the forward queued."""

from __future__ import annotations

import torch


class OffloadingEngine:
    def __init__(self, model: torch.nn.Module, kv_cache: torch.Tensor) -> None:
        self.model = model
        self.kv_cache = kv_cache
        self.forward_stream = torch.cuda.Stream(device=kv_cache.device)
        self.offload_stream = torch.cuda.Stream(device=kv_cache.device)
        self.host_kv = torch.empty(kv_cache.shape, dtype=kv_cache.dtype, pin_memory=True)

    def step(self, input_ids: torch.Tensor) -> torch.cuda.Event:
        with torch.cuda.stream(self.forward_stream):
            self.model(input_ids, self.kv_cache)
        ready = torch.cuda.Event()
        ready.record()
        self.offload_stream.wait_event(ready)
        with torch.cuda.stream(self.offload_stream):
            # expect: KVG001
            self.host_kv.copy_(self.kv_cache, non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        return done
