from __future__ import annotations

import logging
from typing import Iterator, Tuple

import torch

logger = logging.getLogger(__name__)

HICACHE_LAYOUTS = ("layer_first", "page_first")


def get_device_module(device: str = "cuda"):
    return torch.get_device_module(device)


def iter_contiguous_spans(
    host_indices: torch.Tensor, device_indices: torch.Tensor
) -> Iterator[Tuple[int, int, int]]:
    """Group index pairs into runs where both sides advance by one."""
    assert host_indices.numel() == device_indices.numel()
    if host_indices.numel() == 0:
        return
    host = host_indices.tolist()
    dev = device_indices.tolist()
    start_h, start_d, length = host[0], dev[0], 1
    for h, d in zip(host[1:], dev[1:]):
        if h == start_h + length and d == start_d + length:
            length += 1
            continue
        yield start_h, start_d, length
        start_h, start_d, length = h, d, 1
    yield start_h, start_d, length
