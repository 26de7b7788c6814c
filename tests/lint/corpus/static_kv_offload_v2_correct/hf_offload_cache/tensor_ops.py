from typing import Tuple

import torch


def allocate_layer_cache(
    shape: Tuple[int, ...], dtype: torch.dtype, device: torch.device
) -> Tuple[torch.Tensor, torch.Tensor]:
    is_cpu_device = device == torch.device("cpu")
    key_cache = torch.zeros(shape, dtype=dtype, device=device, pin_memory=is_cpu_device)
    value_cache = torch.zeros(shape, dtype=dtype, device=device, pin_memory=is_cpu_device)
    # Tag the cache as a fixed data pointer so compiled graphs do not break on update.
    torch._dynamo.mark_static_address(key_cache)
    torch._dynamo.mark_static_address(value_cache)
    return key_cache, value_cache


def load_layer_into(
    device_key: torch.Tensor,
    device_value: torch.Tensor,
    host_key: torch.Tensor,
    host_value: torch.Tensor,
) -> None:
    """Copies one offloaded layer into an on-device buffer on the current stream."""
    device_key.copy_(host_key, non_blocking=True)
    device_value.copy_(host_value, non_blocking=True)
