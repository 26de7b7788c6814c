"""A small decoder with alternating full and sliding-window attention that keeps its KV in the
offloaded hybrid cache."""

import torch
import torch.nn.functional as F

from offload_cache.cache import OffloadedHybridCache


class Attention(torch.nn.Module):
    def __init__(self, layer_idx, hidden, heads):
        super().__init__()
        self.layer_idx, self.heads = layer_idx, heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.o_proj = torch.nn.Linear(hidden, hidden)

    def forward(self, x, past_key_values, cache_position):
        b, t, h = x.shape
        q, k, v = (s.view(b, t, self.heads, -1).transpose(1, 2) for s in self.qkv(x).chunk(3, dim=-1))
        k, v = past_key_values.update(k, v, self.layer_idx, {"cache_position": cache_position})
        out = F.scaled_dot_product_attention(q, k, v)
        return x + self.o_proj(out.transpose(1, 2).reshape(b, t, h))


class HybridDecoder(torch.nn.Module):
    def __init__(self, vocab, hidden, heads, layer_types):
        super().__init__()
        self.layer_types = layer_types
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.layers = torch.nn.ModuleList(Attention(i, hidden, heads) for i in range(len(layer_types)))
        self.lm_head = torch.nn.Linear(hidden, vocab)

    def forward(self, input_ids, past_key_values, cache_position):
        x = self.embed(input_ids)
        for layer in self.layers:
            x = layer(x, past_key_values, cache_position)
        return self.lm_head(x)


@torch.no_grad()
def generate(model, input_ids, max_new_tokens, heads, head_dim, sliding_window=256):
    b, prompt_len = input_ids.shape
    cache = OffloadedHybridCache(model.layer_types, b, heads, head_dim, prompt_len + max_new_tokens,
                                 sliding_window)
    cache_position = torch.arange(prompt_len, device=input_ids.device)
    tokens = input_ids
    for _ in range(max_new_tokens):
        logits = model(tokens, cache, cache_position)
        tokens = logits[:, -1:].argmax(-1)
        cache_position = cache_position[-1:] + 1
    return tokens
