from typing import Tuple

import torch


def load_layer_into(
    device_key: torch.Tensor,
    device_value: torch.Tensor,
    host_key: torch.Tensor,
    host_value: torch.Tensor,
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Copy one offloaded layer into the reusable on-device buffers."""
    device_key.copy_(host_key, non_blocking=True)
    device_value.copy_(host_value, non_blocking=True)
    return device_key, device_value


def write_back_tokens(host_cache: torch.Tensor, states: torch.Tensor, cache_position: torch.Tensor) -> None:
    """Mirror freshly computed states into the host copy of the layer."""
    host_cache.index_copy_(2, cache_position.to(host_cache.device), states.to(host_cache.device))
