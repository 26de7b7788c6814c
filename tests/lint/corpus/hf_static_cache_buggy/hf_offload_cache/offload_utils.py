# Copyright 2024 The HuggingFace Team. All rights reserved.
from typing import Tuple

import torch
from packaging import version

_TORCH_HAS_GENERIC_STREAM = version.parse(torch.__version__).release >= (2, 7)


def make_side_stream(device: torch.device):
    if _TORCH_HAS_GENERIC_STREAM:
        return torch.Stream(device=device)
    return torch.cuda.Stream(device=device)


def alloc_layer(shape: Tuple[int, ...], dtype: torch.dtype, device, pin: bool) -> torch.Tensor:
    return torch.zeros(shape, dtype=dtype, device=device, pin_memory=pin)


def copy_layer_to_device(
    host_key: torch.Tensor, host_value: torch.Tensor, dev_key: torch.Tensor, dev_value: torch.Tensor
) -> None:
    for dst, src in ((dev_key, host_key), (dev_value, host_value)):
        # expect: KVG004
        dst.copy_(src, non_blocking=True)


def write_back_tokens(
    host_key: torch.Tensor,
    host_value: torch.Tensor,
    key_states: torch.Tensor,
    value_states: torch.Tensor,
    start: int,
) -> None:
    length = key_states.shape[-2]
    for dst, src in ((host_key, key_states), (host_value, value_states)):
        dst.narrow(-2, start, length).copy_(src, non_blocking=True)
