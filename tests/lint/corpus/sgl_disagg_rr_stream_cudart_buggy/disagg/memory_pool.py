"""Paged device KV pool in the shape of SGLang's MHATokenToKVPool."""

import torch


class MHATokenToKVPool:
    def __init__(self, num_pages: int, page_size: int, head_num: int, head_dim: int,
                 layer_num: int, dtype: torch.dtype = torch.bfloat16):
        self.page_size = page_size
        self.layer_num = layer_num
        size = num_pages * page_size
        self.k_buffer = [torch.zeros((size, head_num, head_dim), dtype=dtype, device="cuda")
                         for _ in range(layer_num)]
        self.v_buffer = [torch.zeros((size, head_num, head_dim), dtype=dtype, device="cuda")
                         for _ in range(layer_num)]
        self.page_nbytes = self.k_buffer[0][:page_size].nbytes
