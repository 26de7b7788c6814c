"""A decoder that hands each layer's new K/V to the hybrid cache and attends over what it returns."""

import torch
import torch.nn.functional as F
from torch import nn

from hybrid_offload.cache import OffloadedHybridCache


class Attention(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int, layer_idx: int):
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        self.head_dim = hidden // heads
        self.layer_idx = layer_idx
        self.q_proj = nn.Linear(hidden, heads * self.head_dim, bias=False)
        self.kv_proj = nn.Linear(hidden, 2 * kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(heads * self.head_dim, hidden, bias=False)

    def forward(self, hidden, cache: OffloadedHybridCache, cache_position):
        bsz, q_len, _ = hidden.shape
        q = self.q_proj(hidden).view(bsz, q_len, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv_proj(hidden).view(bsz, q_len, 2, self.kv_heads, self.head_dim).unbind(2)
        k, v = k.transpose(1, 2), v.transpose(1, 2)
        keys, values = cache.update(k, v, self.layer_idx, cache_position)
        out = F.scaled_dot_product_attention(q, keys, values, enable_gqa=True)
        return self.o_proj(out.transpose(1, 2).reshape(bsz, q_len, -1))


class HybridDecoder(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int, num_layers: int):
        super().__init__()
        self.layers = nn.ModuleList(Attention(hidden, heads, kv_heads, i) for i in range(num_layers))
        self.norm = nn.LayerNorm(hidden)

    @torch.no_grad()
    def forward(self, hidden, cache: OffloadedHybridCache, cache_position):
        for layer in self.layers:
            hidden = hidden + layer(self.norm(hidden), cache, cache_position)
        return hidden


@torch.no_grad()
def greedy_decode(model: HybridDecoder, embed: nn.Embedding, head: nn.Linear, prompt, cache, steps: int):
    hidden = embed(prompt)
    position = torch.arange(prompt.shape[1], device=prompt.device)
    out = []
    for _ in range(steps):
        hidden = model(hidden, cache, position)
        token = head(hidden[:, -1]).argmax(-1, keepdim=True)
        out.append(token)
        hidden = embed(token)
        position = position[-1:] + 1
    return torch.cat(out, dim=1)
