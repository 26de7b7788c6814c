"""The decoder side of the offloaded cache: each attention layer projects q/k/v on the compute
stream, hands k/v to the cache's ``update`` and attends over the slot it gets back."""

import torch
import torch.nn.functional as F
from torch import nn


class CachedAttention(nn.Module):
    def __init__(self, hidden, heads, layer_idx):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.layer_idx = layer_idx
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
        self.out = nn.Linear(hidden, hidden, bias=False)

    def forward(self, hidden, cache, cache_position):
        bsz, q_len, _ = hidden.shape
        q, k, v = self.qkv(hidden).view(bsz, q_len, 3, self.heads, self.head_dim).unbind(2)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        keys, values = cache.update(k, v, self.layer_idx, cache_position)
        attn = F.scaled_dot_product_attention(q, keys, values)
        return self.out(attn.transpose(1, 2).reshape(bsz, q_len, -1))


class OffloadedDecoder(nn.Module):
    def __init__(self, hidden, heads, num_layers, cache):
        super().__init__()
        self.layers = nn.ModuleList(CachedAttention(hidden, heads, i) for i in range(num_layers))
        self.cache = cache

    @torch.no_grad()
    def forward(self, hidden, cache_position):
        for layer in self.layers:
            hidden = hidden + layer(hidden, self.cache, cache_position)
        self.cache.finish_step()
        return hidden


def generate(model, hidden, steps):
    model.cache.start()
    for step in range(steps):
        position = torch.tensor([step], device=hidden.device)
        hidden = model(hidden, position)
    return hidden
