"""Host and device KV pools in the shape of SGLang HiCache: the device pool holds one K and
one V buffer per layer on the GPU, the host pool mirrors them in pinned memory; pages are
backed up (device to host) and loaded back (host to device) layer by layer on whatever
stream the caller made current."""

import torch


class DeviceKVPool:
    def __init__(self, size, layer_num, head_num, head_dim, dtype=torch.float16):
        self.layer_num = layer_num
        self.k_buffer = [
            torch.zeros((size, head_num, head_dim), dtype=dtype, device="cuda") for _ in range(layer_num)
        ]
        self.v_buffer = [
            torch.zeros((size, head_num, head_dim), dtype=dtype, device="cuda") for _ in range(layer_num)
        ]


class HostKVPool:
    def __init__(self, device_pool, host_size, page_size, head_num, head_dim, dtype=torch.float16):
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.k_buffer = torch.empty(
            (self.layer_num, host_size, head_num, head_dim), dtype=dtype, pin_memory=True
        )
        self.v_buffer = torch.empty(
            (self.layer_num, host_size, head_num, head_dim), dtype=dtype, pin_memory=True
        )
        self.free_pages = list(range(host_size // page_size))

    def alloc(self, num_pages):
        pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
        return pages

    def backup_from_device_all_layer(self, device_pool, host_pages, device_pages):
        size = self.page_size
        for layer in range(self.layer_num):
            for host_page, device_page in zip(host_pages, device_pages):
                h, d = host_page * size, device_page * size
                # expect: KVG001
                self.k_buffer[layer, h : h + size].copy_(
                    device_pool.k_buffer[layer][d : d + size], non_blocking=True
                )
                # expect: KVG001
                self.v_buffer[layer, h : h + size].copy_(
                    device_pool.v_buffer[layer][d : d + size], non_blocking=True
                )
