"""Paged-KV GPU connector: gathers a chunk of tokens out of the paged KV cache into a pinned
memory object. Works on whatever accelerator the KV cache lives on."""

import torch


class PagedKVGPUConnector:
    def __init__(self, kv_cache, device):
        self.kv_cache = kv_cache
        self.device = torch.device(device)
        self.devmod = getattr(torch, self.device.type)
        self.store_stream = self.devmod.Stream(self.device)

    def from_gpu(self, memory_obj, slot_mapping, slot_mapping_cpu, start, end):
        # count the valid entries on the host copy of the slot mapping: no device round trip
        num_valid = (slot_mapping_cpu[start:end] >= 0).sum().item()
        if num_valid == 0:
            return 0
        slots = slot_mapping[start:end][:num_valid]
        with self.devmod.stream(self.store_stream):
            # expect: KVG001
            memory_obj.tensor[:num_valid].copy_(self.kv_cache[slots], non_blocking=True)
        self.store_stream.synchronize()
        return num_valid
