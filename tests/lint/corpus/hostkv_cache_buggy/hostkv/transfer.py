from typing import Union

import torch

DeviceLike = Union[str, torch.device]


def alloc_host_pair(shape: tuple[int, ...], dtype: torch.dtype, pin: bool) -> tuple[torch.Tensor, torch.Tensor]:
    keys = torch.zeros(shape, dtype=dtype, pin_memory=pin)
    values = torch.zeros(shape, dtype=dtype, pin_memory=pin)
    return keys, values


def spill_tokens(
    host_k: torch.Tensor,
    host_v: torch.Tensor,
    dev_k: torch.Tensor,
    dev_v: torch.Tensor,
    start: int,
    stream: torch.cuda.Stream,
) -> None:
    """Write ``dev_k``/``dev_v`` into positions ``[start, start + len)`` of the host history."""
    end = start + dev_k.shape[-2]
    with torch.cuda.stream(stream):
        # expect: KVG001
        host_k[:, :, start:end, :].copy_(dev_k, non_blocking=True)
        # expect: KVG001
        host_v[:, :, start:end, :].copy_(dev_v, non_blocking=True)
    dev_k.record_stream(stream)
    dev_v.record_stream(stream)


def fetch_tokens(
    host_k: torch.Tensor,
    host_v: torch.Tensor,
    length: int,
    device: DeviceLike,
    stream: torch.cuda.Stream,
) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.cuda.stream(stream):
        shape = host_k[:, :, :length, :].shape
        dev_k = torch.empty(shape, dtype=host_k.dtype, device=device)
        dev_v = torch.empty(shape, dtype=host_v.dtype, device=device)
        dev_k.copy_(host_k[:, :, :length, :], non_blocking=True)
        dev_v.copy_(host_v[:, :, :length, :], non_blocking=True)
    return dev_k, dev_v
