"""A small decoder that keeps its KV cache in an OffloadedStaticCache."""

import torch
import torch.nn.functional as F

from .config import CacheConfig
from .static_cache import OffloadedStaticCache


class Attention(torch.nn.Module):
    def __init__(self, config: CacheConfig, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.heads = config.num_attention_heads
        self.kv_heads = config.num_key_value_heads
        self.head_dim = config.head_dim
        self.q_proj = torch.nn.Linear(config.hidden_size, self.heads * self.head_dim)
        self.kv_proj = torch.nn.Linear(config.hidden_size, 2 * self.kv_heads * self.head_dim)
        self.o_proj = torch.nn.Linear(self.heads * self.head_dim, config.hidden_size)

    def forward(self, hidden_states, past_key_values, cache_position):
        b, t, _ = hidden_states.shape
        q = self.q_proj(hidden_states).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv_proj(hidden_states).view(b, t, 2, self.kv_heads, self.head_dim).unbind(2)
        k, v = k.transpose(1, 2), v.transpose(1, 2)
        k_all, v_all = past_key_values.update(k, v, self.layer_idx, {"cache_position": cache_position})
        out = F.scaled_dot_product_attention(q, k_all, v_all, enable_gqa=True)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, -1))


class TinyLM(torch.nn.Module):
    def __init__(self, config: CacheConfig, vocab_size):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab_size, config.hidden_size)
        self.layers = torch.nn.ModuleList(Attention(config, i) for i in range(config.num_hidden_layers))
        self.lm_head = torch.nn.Linear(config.hidden_size, vocab_size)

    def forward(self, input_ids, past_key_values, cache_position):
        h = self.embed(input_ids)
        for layer in self.layers:
            h = h + layer(h, past_key_values, cache_position)
        return self.lm_head(h)


@torch.inference_mode()
def generate(model, config, input_ids, max_new_tokens):
    cache = OffloadedStaticCache(config)
    cache_position = torch.arange(input_ids.shape[1], device=input_ids.device)
    tokens = input_ids
    generated = []
    for _ in range(max_new_tokens):
        logits = model(tokens, cache, cache_position)
        tokens = logits[:, -1:].argmax(-1)
        generated.append(tokens)
        cache_position = cache_position[-1:] + 1
    return torch.cat(generated, dim=1)
