"""A toy decoder that keeps its KV cache in an OffloadedStaticCache."""

import torch
import torch.nn.functional as F

from .static_cache import OffloadedStaticCache


class DecoderLayer(torch.nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.out = torch.nn.Linear(hidden, hidden)

    def split(self, x):
        b, t, h = x.shape
        return x.view(b, t, self.heads, h // self.heads).transpose(1, 2)

    def forward(self, hidden_states, cache, layer_idx, cache_position):
        q, k, v = self.qkv(hidden_states).chunk(3, dim=-1)
        q, k, v = self.split(q), self.split(k), self.split(v)
        k_all, v_all = cache.update(k, v, layer_idx, cache_position)
        attn = F.scaled_dot_product_attention(q, k_all, v_all)
        b, _, t, _ = attn.shape
        return hidden_states + self.out(attn.transpose(1, 2).reshape(b, t, -1))


class TinyDecoder(torch.nn.Module):
    def __init__(self, vocab, hidden, heads, layers):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.layers = torch.nn.ModuleList(DecoderLayer(hidden, heads) for _ in range(layers))
        self.lm_head = torch.nn.Linear(hidden, vocab)

    def forward(self, input_ids, cache, cache_position):
        hidden_states = self.embed(input_ids)
        for idx, layer in enumerate(self.layers):
            hidden_states = layer(hidden_states, cache, idx, cache_position)
        return self.lm_head(hidden_states)


def greedy_generate(model, input_ids, max_new_tokens, heads, head_dim, snapshot_path):
    batch, prompt_len = input_ids.shape
    cache = OffloadedStaticCache(len(model.layers), batch, heads, prompt_len + max_new_tokens, head_dim)
    cache_position = torch.arange(prompt_len, device="cuda")
    tokens = input_ids
    for _ in range(max_new_tokens):
        logits = model(tokens, cache, cache_position)
        tokens = logits[:, -1:].argmax(-1)
        cache_position = cache_position[-1:] + 1
    cache.save(snapshot_path)
    return tokens
