import math
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

from .cache import OffloadedStaticCache


def repeat_kv(hidden_states: torch.Tensor, n_rep: int) -> torch.Tensor:
    if n_rep == 1:
        return hidden_states
    batch, num_kv_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_kv_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_kv_heads * n_rep, slen, head_dim)


class CachedAttention(nn.Module):
    def __init__(self, hidden_size: int, num_heads: int, num_kv_heads: int, layer_idx: int) -> None:
        super().__init__()
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_dim = hidden_size // num_heads
        self.q_proj = nn.Linear(hidden_size, num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * self.head_dim, hidden_size, bias=False)

    def forward(
        self, hidden_states: torch.Tensor, cache: OffloadedStaticCache, cache_position: torch.Tensor
    ) -> torch.Tensor:
        bsz, q_len, _ = hidden_states.shape
        q = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, q_len, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, q_len, self.num_kv_heads, self.head_dim).transpose(1, 2)

        k_all, v_all = cache.update(k, v, self.layer_idx, {"cache_position": cache_position})
        n_rep = self.num_heads // self.num_kv_heads
        k_all = repeat_kv(k_all, n_rep)
        v_all = repeat_kv(v_all, n_rep)

        positions = torch.arange(k_all.shape[-2], device=hidden_states.device)
        mask = positions[None, :] <= cache_position[:, None]
        attn = F.scaled_dot_product_attention(q, k_all, v_all, attn_mask=mask, scale=1.0 / math.sqrt(self.head_dim))
        attn = attn.transpose(1, 2).reshape(bsz, q_len, -1)
        return self.o_proj(attn)


class OffloadedDecoder(nn.Module):
    def __init__(self, hidden_size: int, num_heads: int, num_kv_heads: int, num_layers: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            [CachedAttention(hidden_size, num_heads, num_kv_heads, idx) for idx in range(num_layers)]
        )
        self.norm = nn.LayerNorm(hidden_size)

    @torch.no_grad()
    def forward(
        self,
        hidden_states: torch.Tensor,
        cache: OffloadedStaticCache,
        cache_position: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        if cache_position is None:
            start = cache.get_seq_length()
            cache_position = torch.arange(start, start + hidden_states.shape[1], device=hidden_states.device)
        for layer in self.layers:
            hidden_states = hidden_states + layer(hidden_states, cache, cache_position)
        return self.norm(hidden_states)
