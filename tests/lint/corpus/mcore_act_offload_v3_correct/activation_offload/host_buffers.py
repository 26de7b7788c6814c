from typing import Dict, Tuple

import torch

_Key = Tuple[torch.Size, torch.dtype]


class HostBufferPool:
    """Reuses pinned host buffers across microbatches, keyed by shape and dtype."""

    def __init__(self):
        self._free: Dict[_Key, list] = {}

    def get(self, like: torch.Tensor) -> torch.Tensor:
        bucket = self._free.get((like.shape, like.dtype))
        if bucket:
            return bucket.pop()
        return torch.empty(like.shape, dtype=like.dtype, device="cpu", pin_memory=True)

    def put(self, buf: torch.Tensor) -> None:
        self._free.setdefault((buf.shape, buf.dtype), []).append(buf)


def offload_to_host(gpu_tensor: torch.Tensor, pool: HostBufferPool, d2h_stream: torch.cuda.Stream) -> torch.Tensor:
    cpu_buf = pool.get(gpu_tensor)
    with torch.cuda.stream(d2h_stream):
        cpu_buf.copy_(gpu_tensor, non_blocking=True)
    gpu_tensor.record_stream(d2h_stream)
    return cpu_buf


def reload_to_device(cpu_buf: torch.Tensor, device: torch.device, h2d_stream: torch.cuda.Stream) -> torch.Tensor:
    with torch.cuda.stream(h2d_stream):
        gpu_tensor = torch.empty(cpu_buf.shape, dtype=cpu_buf.dtype, device=device)
        gpu_tensor.copy_(cpu_buf, non_blocking=True)
    gpu_tensor.record_stream(torch.cuda.current_stream(device))
    return gpu_tensor
