from __future__ import annotations

import logging
import queue
from typing import Sequence

import torch

from disaggregation import cudart
from disaggregation.config import CUDA_MEMCPY_DEVICE_TO_HOST

logger = logging.getLogger(__name__)


class HostStagingPool:
    """Fixed set of pinned buffers the sender gathers KV blocks into."""

    def __init__(self, num_buffers: int, buffer_bytes: int):
        self.buffer_bytes = buffer_bytes
        self._free: "queue.Queue[torch.Tensor]" = queue.Queue()
        for _ in range(num_buffers):
            self._free.put(torch.empty(buffer_bytes, dtype=torch.uint8, pin_memory=True))

    def acquire(self) -> torch.Tensor:
        return self._free.get()

    def release(self, buf: torch.Tensor) -> None:
        self._free.put(buf)


def gather_blocks_to_host(
    buf: torch.Tensor,
    layer_caches: Sequence[torch.Tensor],
    block_ids: Sequence[int],
    stream: int,
) -> int:
    """Enqueue per-block D2H copies of every layer into ``buf``; returns bytes used."""
    offset = 0
    dst_base = buf.data_ptr()
    for cache in layer_caches:
        block_bytes = cache.stride(0) * cache.element_size()
        src_base = cache.data_ptr()
        for block_id in block_ids:
            if offset + block_bytes > buf.numel():
                raise ValueError("staging buffer too small for requested blocks")
            cudart.memcpy_async(
                dst_base + offset,
                src_base + block_id * block_bytes,
                block_bytes,
                CUDA_MEMCPY_DEVICE_TO_HOST,
                stream,
            )
            offset += block_bytes
    return offset
