"""Token-to-KV pool: per-layer K and V buffers on the device, paged."""

import torch


class MHATokenToKVPool:

    def __init__(self, num_pages, page_size, num_layers, num_heads, head_dim, dtype=torch.bfloat16, device="cuda"):
        self.page_size = page_size
        self.num_layers = num_layers
        shape = (num_pages, page_size, num_heads, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.v_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(num_layers)]
        self.page_bytes = page_size * num_heads * head_dim * self.k_buffer[0].element_size()

    def page(self, layer_id, page_id):
        return self.k_buffer[layer_id][page_id], self.v_buffer[layer_id][page_id]
