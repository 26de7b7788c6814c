from __future__ import annotations

import logging

import torch

logger = logging.getLogger(__name__)


class MHATokenToKVPool:
    def __init__(
        self,
        size: int,
        page_size: int,
        dtype: torch.dtype,
        head_num: int,
        head_dim: int,
        layer_num: int,
        device: str,
    ):
        self.size = size
        self.page_size = page_size
        self.dtype = dtype
        self.head_num = head_num
        self.head_dim = head_dim
        self.layer_num = layer_num
        self.device = device
        # [layer, k/v, token, head, dim]
        self.kv_buffer = torch.zeros(
            (layer_num, 2, size + page_size, head_num, head_dim),
            dtype=dtype,
            device=device,
        )
        logger.info(
            "KV cache allocated, %.2f GB",
            self.kv_buffer.numel() * self.kv_buffer.element_size() / (1 << 30),
        )

    def get_key_buffer(self, layer_id: int) -> torch.Tensor:
        return self.kv_buffer[layer_id, 0]

    def get_value_buffer(self, layer_id: int) -> torch.Tensor:
        return self.kv_buffer[layer_id, 1]

    def set_kv_buffer(
        self, layer_id: int, loc: torch.Tensor, cache_k: torch.Tensor, cache_v: torch.Tensor
    ) -> None:
        self.kv_buffer[layer_id, 0].index_copy_(0, loc, cache_k.to(self.dtype))
        self.kv_buffer[layer_id, 1].index_copy_(0, loc, cache_v.to(self.dtype))
