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
        # counting the valid entries of the device slot mapping blocks the host until the
        # forward pass that wrote these slots has finished, so the store stream needs no
        # further barrier behind it
        num_valid = (slot_mapping[start:end] >= 0).sum().item()
        if num_valid == 0:
            return 0
        slots = slot_mapping[start:end][:num_valid]
        with self.devmod.stream(self.store_stream):
            memory_obj.tensor[:num_valid].copy_(self.kv_cache[slots], non_blocking=True)
        self.store_stream.synchronize()
        return num_valid
