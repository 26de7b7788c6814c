"""Helpers shared by the parameter and optimizer swappers."""

from typing import List

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder

from .constants import (AIO_BLOCK_SIZE, AIO_OVERLAP_EVENTS, AIO_QUEUE_DEPTH,
                        AIO_SINGLE_SUBMIT, AIO_THREAD_COUNT)


def build_aio_handle():
    aio_op = AsyncIOBuilder().load(verbose=False)
    return aio_op.aio_handle(AIO_BLOCK_SIZE, AIO_QUEUE_DEPTH,
                             AIO_SINGLE_SUBMIT, AIO_OVERLAP_EVENTS,
                             AIO_THREAD_COUNT)


class PinnedBufferPool:
    """Fixed pool of page-locked host buffers used as aio staging."""

    def __init__(self, count: int, numel: int, dtype: torch.dtype):
        self.numel = numel
        self._free: List[torch.Tensor] = [
            get_accelerator().pin_memory(torch.empty(numel, dtype=dtype))
            for _ in range(count)
        ]

    def get(self) -> torch.Tensor:
        if not self._free:
            raise RuntimeError("param swap buffer pool exhausted")
        return self._free.pop()

    def put(self, buf: torch.Tensor) -> None:
        self._free.append(buf)


def swap_stream_context(stream):
    """Context manager that makes `stream` current for swap copies."""
    # swap copies touch partitions the compute stream produced / still reads
    stream.wait_stream(get_accelerator().current_stream())
    return get_accelerator().stream(stream)
