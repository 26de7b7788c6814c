# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from dataclasses import dataclass
import os

import torch

from deepspeed import comm as dist
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .async_swapper import AsyncTensorSwapper
from .constants import (AIO_ALIGNED_BYTES, DEFAULT_BUFFER_COUNT, DEFAULT_BUFFER_NUMEL, DEFAULT_WRITER_THREADS,
                        SWAP_FILE_SUFFIX, SWAP_OUT_GRADIENT_TIMER)
from .file_writer import SwapFileWriter


@dataclass
class GradientSwapConfig:
    nvme_path: str
    buffer_count: int = DEFAULT_BUFFER_COUNT
    buffer_numel: int = DEFAULT_BUFFER_NUMEL
    writer_threads: int = DEFAULT_WRITER_THREADS


class PartitionedGradientSwapper(object):

    def __init__(self, config: GradientSwapConfig, dtype: torch.dtype, timers=None):
        self.timers = timers
        self.swap_folder = os.path.join(config.nvme_path, "zero_stage_3", f"rank{dist.get_rank()}")
        self.writer = SwapFileWriter(self.swap_folder, config.writer_threads)
        element_size = torch.tensor([], dtype=dtype).element_size()
        self.swapper = AsyncTensorSwapper(self.writer, AIO_ALIGNED_BYTES // element_size, timers)
        self.swapper.add_buffers([
            get_accelerator().pin_memory(torch.empty(config.buffer_numel, dtype=dtype))
            for _ in range(config.buffer_count)
        ])

    def _swap_path(self, param):
        return os.path.join(self.swap_folder, f"{param.ds_id}_gradient{SWAP_FILE_SUFFIX}")

    def swap_out_gradients(self, params):
        if self.timers:
            self.timers(SWAP_OUT_GRADIENT_TIMER).start()
        swap_params = [p for p in params if p.grad is not None]
        grads = [p.grad for p in swap_params]
        paths = [self._swap_path(p) for p in swap_params]
        self.swapper.swap_out_tensors(grads, paths)
        self.swapper.flush()
        for p in swap_params:
            p.grad = None
        if self.timers:
            self.timers(SWAP_OUT_GRADIENT_TIMER).stop()
        logger.debug(f"swapped out {len(grads)} gradients, {self.swapper.num_elements_swapped} elements")

    def close(self):
        self.swapper.release_buffers()
        self.writer.close()
