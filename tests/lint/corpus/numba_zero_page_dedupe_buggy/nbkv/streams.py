"""Bridging torch's stream to numba."""
import torch
from numba import cuda


def torch_stream_for_numba(stream=None):
    """numba view of a torch stream (the current one by default)."""
    if stream is None:
        stream = torch.cuda.current_stream()
    return cuda.external_stream(stream.cuda_stream)
