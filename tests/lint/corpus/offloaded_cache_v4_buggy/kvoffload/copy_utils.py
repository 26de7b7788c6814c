import torch


def to_host(tensor: torch.Tensor, pin_memory: bool) -> torch.Tensor:
    """Allocates a host tensor and enqueues the copy on the current stream."""
    host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=pin_memory)
    # expect: KVG001
    host.copy_(tensor, non_blocking=True)
    return host


def to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """Enqueues a host-to-device copy into a new device tensor on the current stream."""
    return tensor.to(device, non_blocking=True)
