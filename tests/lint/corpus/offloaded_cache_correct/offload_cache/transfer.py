# coding=utf-8
"""Copies between the pinned host cache and the on-device layer slots."""

from typing import Tuple

import torch


def stage_layer(
    device_slot: Tuple[torch.Tensor, torch.Tensor],
    host_layer: Tuple[torch.Tensor, torch.Tensor],
) -> None:
    """Load a whole layer of K/V from pinned host memory into a device slot."""
    dev_k, dev_v = device_slot
    host_k, host_v = host_layer
    dev_k.copy_(host_k, non_blocking=True)
    dev_v.copy_(host_v, non_blocking=True)


def write_back_tokens(
    host_layer: Tuple[torch.Tensor, torch.Tensor],
    key_states: torch.Tensor,
    value_states: torch.Tensor,
    cache_position: torch.Tensor,
) -> None:
    """Mirror freshly computed K/V for ``cache_position`` into the host cache."""
    host_k, host_v = host_layer
    host_pos = cache_position.to("cpu")
    host_k.index_copy_(2, host_pos, key_states.to("cpu"))
    host_v.index_copy_(2, host_pos, value_states.to("cpu"))
