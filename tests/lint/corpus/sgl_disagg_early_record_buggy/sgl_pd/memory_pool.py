from typing import List

import torch


class MHATokenToKVPool:
    def __init__(self, size: int, head_num: int, head_dim: int, layer_num: int, dtype, device: str):
        self.size = size
        self.layer_num = layer_num
        self.head_num = head_num
        self.head_dim = head_dim
        self.dtype = dtype
        self.k_buffer: List[torch.Tensor] = [
            torch.zeros((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)
        ]
        self.v_buffer: List[torch.Tensor] = [
            torch.zeros((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)
        ]


class ReqToTokenPool:
    def __init__(self, size: int, max_context_len: int, device: str):
        self.req_to_token = torch.zeros((size, max_context_len), dtype=torch.int32, device=device)
