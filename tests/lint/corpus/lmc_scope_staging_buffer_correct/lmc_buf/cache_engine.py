"""Chunked store / retrieve over the buffered connector, driven by the vLLM connector's
``save_kv`` / ``start_load_kv`` calls on the model runner's thread."""

import hashlib
from typing import List

import torch

from lmc_buf.gpu_connector import VLLMBufferedGPUConnector
from lmc_buf.local_cpu_backend import LocalCPUBackend


class LMCacheEngine:
    def __init__(self, num_layers: int, num_heads: int, head_size: int, chunk_size: int = 256):
        self.chunk_size = chunk_size
        self.gpu_connector = VLLMBufferedGPUConnector(
            num_layers, chunk_size, num_heads, head_size, torch.bfloat16, "cuda"
        )
        self.backend = LocalCPUBackend(num_layers, chunk_size, num_heads * head_size, torch.bfloat16)

    def _chunks(self, tokens: List[int]):
        for start in range(0, len(tokens), self.chunk_size):
            end = min(start + self.chunk_size, len(tokens))
            yield start, end, hashlib.sha256(repr(tokens[:end]).encode()).hexdigest()

    def store(self, tokens: List[int], kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> None:
        objs, starts, ends, keys = [], [], [], []
        for start, end, key in self._chunks(tokens):
            if self.backend.get(key) is not None:
                continue
            objs.append(self.backend.allocate(end - start))
            starts.append(start)
            ends.append(end)
            keys.append(key)
        self.gpu_connector.batched_from_gpu(objs, starts, ends, kvcaches, slot_mapping)
        for key, obj in zip(keys, objs):
            self.backend.put(key, obj)

    def retrieve(self, tokens: List[int], kvcaches: List[torch.Tensor], slot_mapping: torch.Tensor) -> int:
        objs, starts, ends = [], [], []
        for start, end, key in self._chunks(tokens):
            obj = self.backend.get(key)
            if obj is None:
                break
            objs.append(obj)
            starts.append(start)
            ends.append(end)
        self.gpu_connector.batched_to_gpu(objs, starts, ends, kvcaches, slot_mapping)
        return ends[-1] if ends else 0
