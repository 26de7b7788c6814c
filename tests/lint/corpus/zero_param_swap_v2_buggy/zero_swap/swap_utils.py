# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os
from typing import List, Sequence, Tuple

import torch
from deepspeed.accelerator import get_accelerator

from .buffer_pool import SwapBuffer

Span = Tuple[int, int]


def stage_partitions(stream, swap_buffer: SwapBuffer, tensors: Sequence[torch.Tensor]):
    """Copy device partitions into one pinned buffer on ``stream``."""
    spans: List[Span] = []
    with get_accelerator().stream(stream):
        for tensor in tensors:
            numel = tensor.numel()
            dst = swap_buffer.allocate(numel)
            # expect: KVG001
            dst.copy_(tensor.view(-1), non_blocking=True)
            tensor.record_stream(stream)
            spans.append((dst.storage_offset(), numel))
        done = get_accelerator().Event()
        done.record(stream)
    return spans, done


def write_spans(swap_buffer: SwapBuffer, spans: Sequence[Span], paths: Sequence[str], done) -> int:
    done.synchronize()
    written = 0
    for (offset, numel), path in zip(spans, paths):
        host = swap_buffer.buffer.narrow(0, offset, numel)
        with open(path, "wb") as fh:
            written += fh.write(memoryview(host.view(torch.uint8).numpy()))
    return written


def read_spans(swap_buffer: SwapBuffer, paths: Sequence[str], numels: Sequence[int]) -> List[Span]:
    spans: List[Span] = []
    for path, numel in zip(paths, numels):
        dst = swap_buffer.allocate(numel)
        with open(path, "rb") as fh:
            fh.readinto(memoryview(dst.view(torch.uint8).numpy()))
        spans.append((dst.storage_offset(), numel))
    return spans


def swap_file_exists(path: str) -> bool:
    return os.path.isfile(path) and os.path.getsize(path) > 0
