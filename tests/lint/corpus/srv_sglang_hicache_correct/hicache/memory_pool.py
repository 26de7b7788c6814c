"""Device and host token-to-KV pools with a per-layer [size, 2, heads, dim] layout."""

import torch


class MHATokenToKVPool:
    def __init__(self, size, layer_num, head_num, head_dim, dtype=torch.float16, device="cuda"):
        self.size = size
        self.layer_num = layer_num
        self.head_num = head_num
        self.head_dim = head_dim
        self.dtype = dtype
        self.device = device
        self.kv_buffer = [
            torch.zeros((size, 2, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]
        self.free_slots = list(range(size))

    def alloc(self, need):
        if need > len(self.free_slots):
            return None
        out, self.free_slots = self.free_slots[:need], self.free_slots[need:]
        return out

    def free(self, slots):
        self.free_slots.extend(slots)

    def get_kv_buffer(self, layer_id):
        return self.kv_buffer[layer_id]


class MHATokenToKVPoolHost:
    def __init__(self, device_pool, host_to_device_ratio=2.0):
        self.layer_num = device_pool.layer_num
        self.size = int(device_pool.size * host_to_device_ratio)
        self.kv_buffer = torch.empty(
            (self.layer_num, self.size, 2, device_pool.head_num, device_pool.head_dim),
            dtype=device_pool.dtype,
            pin_memory=True,
        )
        self.free_slots = list(range(self.size))

    def alloc(self, need):
        if need > len(self.free_slots):
            return None
        out, self.free_slots = self.free_slots[:need], self.free_slots[need:]
        return out

    def backup_from_device_all_layer(self, device_pool, host_indices, device_indices):
        for layer_id in range(self.layer_num):
            src = device_pool.get_kv_buffer(layer_id)
            for h, d in zip(host_indices, device_indices):
                self.kv_buffer[layer_id, h].copy_(src[d], non_blocking=True)

    def load_to_device_per_layer(self, device_pool, host_indices, device_indices, layer_id):
        dst = device_pool.get_kv_buffer(layer_id)
        for h, d in zip(host_indices, device_indices):
            dst[d].copy_(self.kv_buffer[layer_id, h], non_blocking=True)
