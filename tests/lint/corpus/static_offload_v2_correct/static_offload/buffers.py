from typing import Tuple

import torch


def create_key_value_tensors(
    shape: Tuple[int, ...], dtype: torch.dtype, device: torch.device
) -> Tuple[torch.Tensor, torch.Tensor]:
    """Creates K/V tensors on `device`, pinning host tensors and marking device ones static."""
    is_host = device.type == "cpu"
    key = torch.zeros(shape, dtype=dtype, device=device, pin_memory=is_host)
    value = torch.zeros(shape, dtype=dtype, device=device, pin_memory=is_host)
    if not is_host:
        torch._dynamo.mark_static_address(key)
        torch._dynamo.mark_static_address(value)
    return key, value


def write_positions(out: torch.Tensor, states: torch.Tensor, cache_position: torch.Tensor) -> None:
    try:
        out.index_copy_(2, cache_position, states)
    except NotImplementedError:
        out[:, :, cache_position] = states
