# Copyright 2023 The HuggingFace Inc. team.
"""numba-cuda helpers used to move freshly sampled token ids off the device without blocking `generate`."""

import numpy as np
import torch
from numba import cuda

from .constants import HOST_RING_SLOTS, MAX_TOKENS_PER_PUT


def torch_compute_stream():
    """The torch stream `generate` is running on, seen as a numba stream."""
    return cuda.external_stream(torch.cuda.current_stream().cuda_stream)


def make_copy_stream():
    return cuda.stream()


def allocate_host_ring():
    return [cuda.pinned_array(MAX_TOKENS_PER_PUT, dtype=np.int64) for _ in range(HOST_RING_SLOTS)]


def copy_tokens_to_host(token_ids: torch.Tensor, host_slot: np.ndarray, stream) -> int:
    """Enqueue a device-to-host copy of a flat int64 token tensor into `host_slot` on `stream`."""
    flat = token_ids.reshape(-1)
    n = flat.numel()
    if n > host_slot.shape[0]:
        raise ValueError(f"put() got {n} tokens, ring slots hold {host_slot.shape[0]}")
    device_view = cuda.as_cuda_array(flat)
    device_view.copy_to_host(host_slot[:n], stream=stream)
    return n
