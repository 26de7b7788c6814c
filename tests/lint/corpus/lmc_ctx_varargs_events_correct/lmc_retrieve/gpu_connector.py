"""Moves KV chunks between vLLM's paged GPU cache and pinned host chunks of the local
CPU backend. Stores and loads use separate streams."""

from typing import List

import torch

from lmc_retrieve.stream_utils import on_stream


class VLLMPagedGPUConnector:
    def __init__(self, kv_caches: List[torch.Tensor]):
        self.kv_caches = kv_caches
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self._last_store_done = torch.cuda.Event()

    def from_gpu(self, host_chunk: torch.Tensor, block_ids: List[int]) -> torch.cuda.Event:
        self.store_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.store_stream):
            for layer_id, kv in enumerate(self.kv_caches):
                for i, b in enumerate(block_ids):
                    host_chunk[layer_id, i].copy_(kv[b], non_blocking=True)
            self._last_store_done.record(self.store_stream)
        return self._last_store_done

    def to_gpu(self, host_chunk: torch.Tensor, block_ids: List[int]) -> torch.cuda.Event:
        # a load may target blocks a store is still reading, or blocks the forward of a
        # finished request still reads on the compute stream: wait for both
        compute_done = torch.cuda.current_stream().record_event()
        with on_stream(self.load_stream, self._last_store_done, compute_done):
            for layer_id, kv in enumerate(self.kv_caches):
                for i, b in enumerate(block_ids):
                    kv[b].copy_(host_chunk[layer_id, i], non_blocking=True)
            loaded = self.load_stream.record_event()
        return loaded
