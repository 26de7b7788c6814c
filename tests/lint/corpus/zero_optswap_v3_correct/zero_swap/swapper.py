# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from concurrent.futures import Future
from typing import Dict, Set

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .buffer_pool import PinnedSwapBuffer, SwapBufferPool, aligned_numel
from .constants import (MIN_SWAPPABLE_NUMEL, OFFLOAD_BUFFER_COUNT, OFFLOAD_BUFFER_COUNT_DEFAULT, OFFLOAD_NVME_PATH,
                        OFFLOAD_PIPELINE_WRITE, OFFLOAD_PIPELINE_WRITE_DEFAULT, OFFLOAD_WRITER_THREADS,
                        OFFLOAD_WRITER_THREADS_DEFAULT, SWAPPED_STATE_KEYS)
from .writer import AsyncStateWriter


class PipelinedOptimizerSwapper:
    """Stages optimizer state into pinned buffers on a side stream, then writes it out."""

    def __init__(self, swap_config: Dict, largest_numel: int, dtype: torch.dtype = torch.float32):
        self.accelerator = get_accelerator()
        self.pipeline_write = swap_config.get(OFFLOAD_PIPELINE_WRITE, OFFLOAD_PIPELINE_WRITE_DEFAULT)
        count = swap_config.get(OFFLOAD_BUFFER_COUNT, OFFLOAD_BUFFER_COUNT_DEFAULT)
        element_size = torch.tensor([], dtype=dtype).element_size()
        per_buffer = aligned_numel(largest_numel, element_size) * len(SWAPPED_STATE_KEYS)
        self.pool = SwapBufferPool(count, per_buffer, dtype)
        self.writer = AsyncStateWriter(swap_config[OFFLOAD_NVME_PATH], self.pool,
                                       swap_config.get(OFFLOAD_WRITER_THREADS, OFFLOAD_WRITER_THREADS_DEFAULT))
        self.swap_stream = self.accelerator.Stream()
        self.swapped_ids: Set[int] = set()
        logger.info(f"PipelinedOptimizerSwapper: pipeline_write={self.pipeline_write} buffers={count}")

    @staticmethod
    def swappable(tensor: torch.Tensor) -> bool:
        return tensor.numel() >= MIN_SWAPPABLE_NUMEL

    def _stage_state(self, state: Dict[str, torch.Tensor], swap_buf: PinnedSwapBuffer) -> None:
        for key in SWAPPED_STATE_KEYS:
            src = state[key]
            dst = swap_buf.insert(key, src.numel())
            dst.copy_(src.view(-1), non_blocking=True)

    def swap_out_optimizer_state(self, param_id: int, state: Dict[str, torch.Tensor], async_op: bool = True) -> Future:
        swap_buf = self.pool.acquire()
        self.swap_stream.wait_stream(self.accelerator.current_stream())
        with self.accelerator.stream(self.swap_stream):
            self._stage_state(state, swap_buf)
            copy_done = self.accelerator.Event()
            copy_done.record(self.swap_stream)
        for key in SWAPPED_STATE_KEYS:
            state[key].record_stream(self.swap_stream)
        self.swapped_ids.add(param_id)
        future = self.writer.submit(param_id, swap_buf, copy_done)
        if not async_op:
            future.result()
        return future

    def release_swap_stream(self) -> None:
        self.accelerator.current_stream().wait_stream(self.swap_stream)
