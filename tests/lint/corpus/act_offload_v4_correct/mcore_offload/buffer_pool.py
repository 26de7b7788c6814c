from typing import Dict, Hashable

import torch

_GPU_BUFFER_POOL: Dict[Hashable, torch.Tensor] = {}


def get_persistent_gpu_buffer(key: Hashable, numel: int, dtype: torch.dtype) -> torch.Tensor:
    """Return a flat device buffer of at least `numel` elements that lives across iterations."""
    buf = _GPU_BUFFER_POOL.get(key)
    if buf is None or buf.numel() < numel or buf.dtype != dtype:
        _GPU_BUFFER_POOL[key] = None  # release before allocating the larger one
        buf = torch.empty(numel, dtype=dtype, device=torch.cuda.current_device())
        _GPU_BUFFER_POOL[key] = buf
    return buf[:numel]


def get_pinned_cpu_buffer(numel: int, dtype: torch.dtype) -> torch.Tensor:
    # The host caching allocator keeps pinned blocks alive until the copies using them finish.
    return torch.empty(numel, dtype=dtype, pin_memory=True)


def reset_gpu_buffer_pool() -> None:
    _GPU_BUFFER_POOL.clear()
