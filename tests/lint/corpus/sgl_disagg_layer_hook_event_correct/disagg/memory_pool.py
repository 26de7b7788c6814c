"""Paged device KV pool in the shape of SGLang's MHATokenToKVPool."""

import torch


class MHATokenToKVPool:
    def __init__(self, num_pages: int, page_size: int, head_num: int, head_dim: int,
                 layer_num: int, dtype: torch.dtype = torch.bfloat16, device: str = "cuda"):
        self.page_size = page_size
        self.layer_num = layer_num
        self.head_num = head_num
        self.head_dim = head_dim
        self.dtype = dtype
        size = num_pages * page_size
        self.k_buffer = [torch.zeros((size, head_num, head_dim), dtype=dtype, device=device)
                         for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size, head_num, head_dim), dtype=dtype, device=device)
                         for _ in range(layer_num)]

    def set_kv_buffer(self, layer_id: int, loc: torch.Tensor, k: torch.Tensor,
                      v: torch.Tensor) -> None:
        self.k_buffer[layer_id][loc] = k
        self.v_buffer[layer_id][loc] = v
