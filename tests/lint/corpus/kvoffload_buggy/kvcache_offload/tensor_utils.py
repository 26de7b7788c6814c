import torch


def offload_to_host(tensor: torch.Tensor, stream: torch.cuda.Stream, pin_memory: bool = True) -> torch.Tensor:
    """Copies ``tensor`` into a fresh host tensor on ``stream``."""
    host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=pin_memory)
    with torch.cuda.stream(stream):
        # expect: KVG001
        host.copy_(tensor, non_blocking=True)
    # the caching allocator must not hand the device block out before the copy is done
    tensor.record_stream(stream)
    return host


def prefetch_to_device(tensor: torch.Tensor, device: torch.device, stream: torch.cuda.Stream) -> torch.Tensor:
    """Uploads a host tensor into a newly allocated device tensor on ``stream``."""
    if tensor.device == device:
        return tensor
    with torch.cuda.stream(stream):
        return tensor.to(device, non_blocking=True)
