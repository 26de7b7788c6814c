from typing import Callable, List, Optional, Tuple

import torch
import torch.nn.functional as F

from .cache_utils import Cache


def sdpa_attention_forward(
    query: torch.Tensor,
    key_states: torch.Tensor,
    value_states: torch.Tensor,
    past_key_values: Cache,
    layer_idx: int,
    cache_position: torch.Tensor,
    attention_mask: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    key, value = past_key_values.update(
        key_states, value_states, layer_idx, {"cache_position": cache_position}
    )
    num_groups = query.shape[1] // key.shape[1]
    if num_groups > 1:
        key = key.repeat_interleave(num_groups, dim=1)
        value = value.repeat_interleave(num_groups, dim=1)
    return F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask)


def decode_step(
    hidden_states: torch.Tensor,
    qkv_projections: List[Callable[[torch.Tensor], Tuple[torch.Tensor, torch.Tensor, torch.Tensor]]],
    output_projections: List[Callable[[torch.Tensor], torch.Tensor]],
    past_key_values: Cache,
    cache_position: torch.Tensor,
    attention_mask: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """Runs one token through every layer; layers are visited in order, as the cache expects."""
    for layer_idx, (qkv_proj, o_proj) in enumerate(zip(qkv_projections, output_projections)):
        query, key_states, value_states = qkv_proj(hidden_states)
        attn_output = sdpa_attention_forward(
            query, key_states, value_states, past_key_values, layer_idx, cache_position, attention_mask
        )
        batch, heads, seq, head_dim = attn_output.shape
        attn_output = attn_output.transpose(1, 2).reshape(batch, seq, heads * head_dim)
        hidden_states = hidden_states + o_proj(attn_output)
    return hidden_states
