"""Device token-to-KV pool (MHA layout): one K and one V buffer per layer."""

from typing import List

import torch


class MHATokenToKVPool:
    def __init__(self, size: int, page_size: int, layer_num: int, head_num: int, head_dim: int,
                 dtype=torch.bfloat16, device: str = "cuda"):
        self.size = size
        self.page_size = page_size
        self.layer_num = layer_num
        self.device = device
        self.k_buffer: List[torch.Tensor] = [
            torch.zeros((size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)
        ]
        self.v_buffer: List[torch.Tensor] = [
            torch.zeros((size, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)
        ]
        self.layer_transfer_counter = None

    def register_layer_transfer_counter(self, counter) -> None:
        self.layer_transfer_counter = counter

    def get_kv_buffer(self, layer_id: int):
        if self.layer_transfer_counter is not None:
            self.layer_transfer_counter.wait_until(layer_id)
        return self.k_buffer[layer_id], self.v_buffer[layer_id]

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, cache_k: torch.Tensor, cache_v: torch.Tensor):
        self.k_buffer[layer_id][loc] = cache_k
        self.v_buffer[layer_id][loc] = cache_v
