"""Device KV pool (per-layer K/V buffers) and its pinned host mirror, page granular."""

import torch


class DeviceKVPool:
    def __init__(self, size, page_size, layer_num, head_num, head_dim, dtype, device):
        self.page_size = page_size
        shape = (size + page_size, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layer_num)]


class HostKVPool:
    def __init__(self, device_pool, host_size, layer_num, head_num, head_dim, dtype):
        self.page_size = device_pool.page_size
        self.layer_num = layer_num
        self.kv_buffer = torch.empty(
            (2, layer_num, host_size, head_num, head_dim), dtype=dtype, pin_memory=True
        )

    def backup_from_device_all_layer(self, device_pool, host_pages, device_pages):
        ps = self.page_size
        for layer in range(self.layer_num):
            for h, d in zip(host_pages, device_pages):
                # expect: KVG001
                self.kv_buffer[0, layer, h : h + ps].copy_(
                    device_pool.k_buffer[layer][d : d + ps], non_blocking=True
                )
                # expect: KVG001
                self.kv_buffer[1, layer, h : h + ps].copy_(
                    device_pool.v_buffer[layer][d : d + ps], non_blocking=True
                )

    def load_to_device_per_layer(self, device_pool, host_pages, device_pages, layer):
        ps = self.page_size
        for h, d in zip(host_pages, device_pages):
            # expect: KVG004
            device_pool.k_buffer[layer][d : d + ps].copy_(self.kv_buffer[0, layer, h : h + ps], non_blocking=True)
            # expect: KVG004
            device_pool.v_buffer[layer][d : d + ps].copy_(self.kv_buffer[1, layer, h : h + ps], non_blocking=True)

    def get_page(self, h):
        return self.kv_buffer[:, :, h : h + self.page_size]
