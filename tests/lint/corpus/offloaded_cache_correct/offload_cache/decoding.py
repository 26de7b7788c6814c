# coding=utf-8
from typing import Callable, List

import torch

from .cache import OffloadedStaticKVCache

AttnFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


class LayerwiseDecoder:
    """Minimal decode loop: each decoder layer projects q/k/v, updates the
    cache and runs attention over the returned K/V."""

    def __init__(self, layers: List[torch.nn.Module], cache: OffloadedStaticKVCache, attn_fn: AttnFn) -> None:
        self.layers = layers
        self.cache = cache
        self.attn_fn = attn_fn

    @torch.no_grad()
    def decode_step(self, hidden_states: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        for layer_idx, layer in enumerate(self.layers):
            q, k, v = layer.qkv_proj(layer.input_layernorm(hidden_states))
            k_all, v_all = self.cache.update(k, v, layer_idx, {"cache_position": cache_position})
            attn = self.attn_fn(q, k_all, v_all)
            hidden_states = hidden_states + layer.o_proj(attn)
            hidden_states = hidden_states + layer.mlp(layer.post_attention_layernorm(hidden_states))
        return hidden_states
