"""Device KV pool in the shape of SGLang's MHATokenToKVPool: one K and one V buffer per layer,
indexed by token slot. Pages are runs of ``page_size`` consecutive slots."""

import torch


class MHATokenToKVPool:
    def __init__(self, size, page_size, head_num, head_dim, layer_num, dtype=torch.bfloat16,
                 device="cuda"):
        self.size = size
        self.page_size = page_size
        self.head_num = head_num
        self.head_dim = head_dim
        self.layer_num = layer_num
        self.dtype = dtype
        self.device = torch.device(device)
        self.k_buffer = [
            torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]
        self.v_buffer = [
            torch.zeros((size + page_size, head_num, head_dim), dtype=dtype, device=device)
            for _ in range(layer_num)
        ]

    def get_kv_buffer(self, layer_id):
        return self.k_buffer[layer_id], self.v_buffer[layer_id]

    def page_slots(self, page):
        start = page * self.page_size
        return slice(start, start + self.page_size)
