"""Cache engine: after a prefill, store the request's KV chunk by chunk into local CPU
storage."""

import torch

from .gpu_connector import PagedKVGPUConnector
from .memory import PinnedChunkAllocator


class LocalCPUBackend:
    def __init__(self):
        self.store = {}

    def put(self, key, obj):
        obj.key = key
        self.store[key] = obj


class CacheEngine:
    def __init__(self, model, num_slots, token_numel, chunk_tokens=256, device="cuda"):
        self.model = model
        self.device = torch.device(device)
        self.chunk_tokens = chunk_tokens
        self.kv_cache = torch.zeros(num_slots, token_numel, dtype=torch.bfloat16, device=device)
        self.allocator = PinnedChunkAllocator(1024, chunk_tokens, token_numel)
        self.connector = PagedKVGPUConnector(self.kv_cache, device)
        self.backend = LocalCPUBackend()

    def prefill_and_store(self, input_ids, slots, chunk_hashes):
        slot_mapping_cpu = torch.tensor(slots, dtype=torch.long)
        slot_mapping = slot_mapping_cpu.to(self.device, non_blocking=True)
        logits = self.model(input_ids, self.kv_cache, slot_mapping)
        for i, key in enumerate(chunk_hashes):
            obj = self.allocator.allocate()
            if obj is None:
                break
            start = i * self.chunk_tokens
            stored = self.connector.from_gpu(obj, slot_mapping, slot_mapping_cpu, start, start + self.chunk_tokens)
            if stored:
                self.backend.put(key, obj)
            else:
                self.allocator.release(obj)
        return logits
