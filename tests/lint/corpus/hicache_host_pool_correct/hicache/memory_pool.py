from __future__ import annotations

import logging

import torch

logger = logging.getLogger(__name__)


class MHATokenToKVPool:
    """Device-resident paged KV pool written by the attention kernels."""

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
        # [k/v, layer, token, head, dim]
        self.kv_buffer = torch.zeros(
            (2, layer_num, size + page_size, head_num, head_dim),
            dtype=dtype,
            device=device,
        )
        logger.info(
            "KV pool allocated: %.2f GB",
            self.kv_buffer.numel() * self.kv_buffer.element_size() / 1e9,
        )

    def set_kv_buffer(
        self, layer_id: int, loc: torch.Tensor, k: torch.Tensor, v: torch.Tensor
    ) -> None:
        self.kv_buffer[0, layer_id, loc] = k
        self.kv_buffer[1, layer_id, loc] = v
