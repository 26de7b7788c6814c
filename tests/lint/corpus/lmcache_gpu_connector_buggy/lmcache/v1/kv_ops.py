"""Pure-torch fallbacks for ``lmcache.c_ops.multi_layer_kv_transfer``."""

from __future__ import annotations

import torch


def _flat(kv_cache: torch.Tensor, hidden_dim: int) -> torch.Tensor:
    # vLLM flash-attn layout: [2, num_blocks, block_size, num_heads, head_size]
    return kv_cache.view(2, -1, hidden_dim)


def gather_paged_kv(dst: torch.Tensor, kv_caches: list[torch.Tensor],
                    slot_mapping: torch.Tensor) -> None:
    """paged vLLM caches -> dst [2, num_layers, num_tokens, hidden_dim]"""
    hidden_dim = dst.shape[-1]
    for layer_id, kv_cache in enumerate(kv_caches):
        dst[:, layer_id] = _flat(kv_cache, hidden_dim).index_select(1, slot_mapping)


def scatter_paged_kv(src: torch.Tensor, kv_caches: list[torch.Tensor],
                     slot_mapping: torch.Tensor) -> None:
    """src [2, num_layers, num_tokens, hidden_dim] -> paged vLLM caches"""
    hidden_dim = src.shape[-1]
    for layer_id, kv_cache in enumerate(kv_caches):
        _flat(kv_cache, hidden_dim).index_copy_(1, slot_mapping, src[:, layer_id])
