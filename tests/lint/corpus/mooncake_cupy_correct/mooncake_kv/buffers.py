# SPDX-License-Identifier: Apache-2.0
"""Staging helpers between vLLM's paged KV cache and pinned host blocks."""

from typing import List, Sequence

import cupy
import cupyx
import numpy as np
import torch

KV_PLANES = 2


def compute_stream_event() -> cupy.cuda.Event:
    """Mark the work queued so far on the model runner's torch stream."""
    event = cupy.cuda.Event(block=False, disable_timing=True)
    event.record(cupy.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream))
    return event


def alloc_block_staging(num_layers: int, block_shape: Sequence[int], dtype) -> np.ndarray:
    return cupyx.empty_pinned((num_layers, KV_PLANES, *block_shape), dtype=dtype)


def stage_block_to_host(
    kv_layers: List[cupy.ndarray], block_id: int, out: np.ndarray, stream: cupy.cuda.Stream
) -> None:
    for layer_idx, kv in enumerate(kv_layers):
        for plane in range(KV_PLANES):
            cupy.asnumpy(
                kv[plane, block_id], stream=stream, out=out[layer_idx, plane], blocking=True
            )


def load_block_from_host(
    src: np.ndarray, kv_layers: List[cupy.ndarray], block_id: int, stream: cupy.cuda.Stream
) -> None:
    for layer_idx, kv in enumerate(kv_layers):
        for plane in range(KV_PLANES):
            kv[plane, block_id].set(src[layer_idx, plane], stream=stream)
