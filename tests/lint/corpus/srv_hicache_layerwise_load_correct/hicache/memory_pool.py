"""Device KV pool and its pinned host mirror, layer-first, with a per-layer load helper that
copies on the caller's current stream."""

import torch


class DeviceKVPool:
    def __init__(self, size, layer_num, head_num, head_dim, dtype=torch.bfloat16):
        self.layer_num = layer_num
        self.kv_buffer = torch.zeros(
            (layer_num, 2, size, head_num, head_dim), dtype=dtype, device="cuda"
        )


class HostKVPool:
    def __init__(self, host_size, page_size, layer_num, head_num, head_dim, dtype=torch.bfloat16):
        self.page_size = page_size
        self.kv_buffer = torch.empty(
            (layer_num, 2, host_size, head_num, head_dim), dtype=dtype, pin_memory=True
        )

    def load_to_device_per_layer(self, device_pool, host_pages, device_pages, layer_id):
        size = self.page_size
        for host_page, device_page in zip(host_pages, device_pages):
            h, d = host_page * size, device_page * size
            device_pool.kv_buffer[layer_id, :, d : d + size].copy_(
                self.kv_buffer[layer_id, :, h : h + size], non_blocking=True
            )
