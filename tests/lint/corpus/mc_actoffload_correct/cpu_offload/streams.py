"""Stream helpers shared by the offload handlers."""

import torch

# Tensors smaller than this are not worth a PCIe round-trip.
MIN_OFFLOAD_NUMEL = 256 * 1024


def make_offload_streams():
    """One stream for device->host, one for host->device traffic."""
    return torch.cuda.Stream(), torch.cuda.Stream()


def wait_for_compute(side_stream: torch.cuda.Stream) -> None:
    """Make `side_stream` wait for all work queued so far on the current stream."""
    side_stream.wait_stream(torch.cuda.current_stream())


def tensor_need_offloading(tensor: torch.Tensor) -> bool:
    if not tensor.is_cuda or tensor.numel() < MIN_OFFLOAD_NUMEL:
        return False
    if isinstance(tensor, torch.nn.Parameter):
        return False
    return not getattr(tensor, "_do_not_offload", False)
