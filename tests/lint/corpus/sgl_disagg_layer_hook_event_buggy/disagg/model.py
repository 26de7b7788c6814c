"""A decoder stack that writes each layer's K/V into the pool as it runs."""

import torch
from torch import nn


class DecoderLayer(nn.Module):
    def __init__(self, layer_id: int, hidden: int, head_num: int, head_dim: int):
        super().__init__()
        self.layer_id = layer_id
        self.head_num = head_num
        self.head_dim = head_dim
        self.qkv = nn.Linear(hidden, 3 * head_num * head_dim, bias=False)
        self.o_proj = nn.Linear(head_num * head_dim, hidden, bias=False)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.SiLU(), nn.Linear(4 * hidden, hidden))

    def forward(self, hidden_states, out_cache_loc, kv_pool):
        q, k, v = self.qkv(hidden_states).chunk(3, dim=-1)
        shape = (-1, self.head_num, self.head_dim)
        kv_pool.set_kv_buffer(self.layer_id, out_cache_loc, k.view(shape), v.view(shape))
        attn = torch.softmax(q @ k.transpose(0, 1) / self.head_dim ** 0.5, dim=-1) @ v
        hidden_states = hidden_states + self.o_proj(attn)
        return hidden_states + self.mlp(hidden_states)


class CausalLM(nn.Module):
    def __init__(self, vocab: int, hidden: int, layer_num: int, head_num: int, head_dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(
            [DecoderLayer(i, hidden, head_num, head_dim) for i in range(layer_num)])
        self.norm = nn.RMSNorm(hidden)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, input_ids, out_cache_loc, kv_pool):
        h = self.embed(input_ids)
        for layer in self.layers:
            h = layer(h, out_cache_loc, kv_pool)
        return self.lm_head(self.norm(h))
