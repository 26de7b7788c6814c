# SPDX-License-Identifier: Apache-2.0
# Third Party
import torch


def rotate_keys_inplace(
    keys: torch.Tensor,
    old_positions: torch.Tensor,
    new_positions: torch.Tensor,
    inv_freq: torch.Tensor,
) -> None:
    """Re-applies rotary embedding on keys that were cached at old positions."""
    head_dim = inv_freq.numel() * 2
    half = head_dim // 2
    delta = (new_positions - old_positions).to(inv_freq.dtype)
    angles = torch.outer(delta, inv_freq).unsqueeze(1)
    cos, sin = angles.cos().to(keys.dtype), angles.sin().to(keys.dtype)
    heads = keys.view(keys.shape[0], -1, head_dim)
    k1, k2 = heads[..., :half].clone(), heads[..., half:].clone()
    heads[..., :half] = k1 * cos - k2 * sin
    heads[..., half:] = k2 * cos + k1 * sin


def scatter_to_paged(
    buffer: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
) -> None:
    hidden = buffer.shape[-1]
    k_cache.view(-1, hidden).index_copy_(0, slot_mapping, buffer[0])
    v_cache.view(-1, hidden).index_copy_(0, slot_mapping, buffer[1])
