"""A small decoder and a greedy loop that drive the offloaded cache the way ``generate`` does."""

import torch
import torch.nn.functional as F
from torch import nn

from .cache import OffloadedDynamicCache


class Attention(nn.Module):
    def __init__(self, hidden: int, heads: int, layer_idx: int):
        super().__init__()
        self.heads, self.head_dim, self.layer_idx = heads, hidden // heads, layer_idx
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)

    def forward(self, hidden_states, past_key_values):
        bsz, q_len, _ = hidden_states.shape
        qkv = self.qkv(hidden_states).view(bsz, q_len, 3, self.heads, self.head_dim)
        q, k, v = (t.transpose(1, 2) for t in qkv.unbind(2))
        k, v = past_key_values.update(k, v, self.layer_idx)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=q_len > 1)
        return self.o_proj(out.transpose(1, 2).reshape(bsz, q_len, -1))


class TinyDecoder(nn.Module):
    def __init__(self, vocab: int, hidden: int, heads: int, layer_types: list[str]):
        super().__init__()
        self.layer_types = layer_types
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(Attention(hidden, heads, i) for i in range(len(layer_types)))
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, input_ids, past_key_values):
        h = self.embed(input_ids)
        for layer in self.layers:
            h = h + layer(h, past_key_values)
        return self.lm_head(h)


@torch.no_grad()
def greedy_generate(model: TinyDecoder, input_ids: torch.Tensor, max_new_tokens: int,
                    sliding_window: int = 128) -> torch.Tensor:
    cache = OffloadedDynamicCache(model.layer_types, sliding_window=sliding_window)
    next_input = input_ids
    for _ in range(max_new_tokens):
        logits = model(next_input, cache)
        next_input = logits[:, -1:].argmax(dim=-1)
        input_ids = torch.cat([input_ids, next_input], dim=-1)
    return input_ids
