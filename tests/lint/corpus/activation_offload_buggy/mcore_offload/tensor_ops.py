from typing import NamedTuple

import torch


class HostBackup(NamedTuple):
    device: torch.device
    cpu_tensor: torch.Tensor


def offload_to_host(src_tensor: torch.Tensor, pin_memory: bool = True) -> HostBackup:
    """Start a copy of `src_tensor` into a new host buffer on the current stream."""
    cpu_backup = torch.empty(
        src_tensor.size(),
        dtype=src_tensor.dtype,
        layout=src_tensor.layout,
        device="cpu",
        pin_memory=pin_memory,
    )
    # expect: KVG001
    cpu_backup.copy_(src_tensor, non_blocking=pin_memory)
    return HostBackup(src_tensor.device, cpu_backup)


def reload_to_device(state: HostBackup) -> torch.Tensor:
    """Bring a host backup back into a new device tensor on the current stream."""
    non_blocking = state.cpu_tensor.is_pinned()
    return state.cpu_tensor.to(state.device, non_blocking=non_blocking)


def tensor_nbytes(tensor: torch.Tensor) -> int:
    return tensor.numel() * tensor.element_size()
