from __future__ import annotations

from dataclasses import dataclass

import torch

QMAX = 127.0


@dataclass
class QuantizedKV:
    layer: int
    data: torch.Tensor  # int8  [num_blocks, 2, num_heads, block_size, head_dim]
    scales: torch.Tensor  # fp32 [num_blocks, 2, num_heads]

    @property
    def nbytes(self) -> int:
        return (
            self.data.numel() * self.data.element_size()
            + self.scales.numel() * self.scales.element_size()
        )


@torch.no_grad()
def quantize_blocks(kv_cache: torch.Tensor, layer: int) -> QuantizedKV:
    """Symmetric per-(block, k/v, head) int8 quantisation of a paged KV cache."""
    amax = kv_cache.abs().amax(dim=(-2, -1)).float().clamp_min_(1e-6)
    scales = amax / QMAX
    q = torch.round(kv_cache.float() / scales[..., None, None])
    q = q.clamp_(-QMAX, QMAX).to(torch.int8)
    return QuantizedKV(layer=layer, data=q.contiguous(), scales=scales.contiguous())
