"""Export streams, one per device, shared by everything that copies rollouts out."""
import functools

import torch
from numba import cuda


@functools.lru_cache(maxsize=None)
def export_stream(device_index: int) -> torch.cuda.Stream:
    # lowest priority: the export must never delay the policy forwards of the next rollout
    _, lowest = torch.cuda.Stream.priority_range()
    return torch.cuda.Stream(device=device_index, priority=lowest)


def numba_stream(stream: torch.cuda.Stream):
    """The same CUDA stream as a numba stream object (numba does not own it)."""
    return cuda.external_stream(stream.cuda_stream)
