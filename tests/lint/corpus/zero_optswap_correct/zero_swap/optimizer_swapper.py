# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import os
from typing import Callable, Dict, List

import torch

from deepspeed import comm as dist
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .aio_writer import SwapWriter, SwapWriteRequest
from .config import OptimizerSwapConfig
from .constants import OPTIMIZER_SWAP_FOLDER, SWAP_FILE_SUFFIX
from .swap_utils import SwapBufferPool, copy_to_swap_buffers


class PartitionedOptimizerSwapper:

    def __init__(self, config: OptimizerSwapConfig, optimizer: torch.optim.Optimizer, swap_stream=None):
        self.config = config
        self.optimizer = optimizer
        self.swap_stream = swap_stream if swap_stream is not None else get_accelerator().Stream()
        self.buffer_pool = SwapBufferPool(config.buffer_count, config.buffer_numel)
        self.writer = SwapWriter(config.queue_depth, self._on_write_complete)
        self.swap_folder = os.path.join(config.nvme_path, OPTIMIZER_SWAP_FOLDER, f"rank{dist.get_rank()}")
        os.makedirs(self.swap_folder, exist_ok=True)
        self._swap_paths: Dict[int, List[str]] = {}

    def _state_tensors(self, parameter: torch.Tensor) -> List[torch.Tensor]:
        state = self.optimizer.state[parameter]
        keys = sorted(k for k, v in state.items() if torch.is_tensor(v) and v.dim() > 0)
        return [parameter.data] + [state[k] for k in keys]

    def _get_swap_paths(self, parameter: torch.Tensor, count: int) -> List[str]:
        key = id(parameter)
        if key not in self._swap_paths:
            self._swap_paths[key] = [
                os.path.join(self.swap_folder, f"{key}_{i}{SWAP_FILE_SUFFIX}") for i in range(count)
            ]
        return self._swap_paths[key]

    def _on_write_complete(self, request: SwapWriteRequest) -> None:
        self.buffer_pool.release(request.buffer_indices)

    def swap_out_optimizer_state(self, parameter: torch.Tensor, async_swap: bool = False) -> None:
        tensors = self._state_tensors(parameter)
        paths = self._get_swap_paths(parameter, len(tensors))
        indices, buffers = self.buffer_pool.allocate(len(tensors))

        compute_stream = get_accelerator().current_stream()
        self.swap_stream.wait_stream(compute_stream)

        with get_accelerator().stream(self.swap_stream):
            views = copy_to_swap_buffers(buffers, tensors)
            copy_done = get_accelerator().Event()
            copy_done.record(self.swap_stream)
        for tensor in tensors:
            tensor.record_stream(self.swap_stream)

        self.writer.submit(SwapWriteRequest(paths=paths, views=views, buffer_indices=indices, copy_done=copy_done))
        if not (async_swap and self.config.pipeline_write):
            self.writer.flush()

    def step_and_swap(self, sub_group_params: List[torch.Tensor], step_fn: Callable[[torch.Tensor], None]) -> None:
        last = len(sub_group_params) - 1
        for i, param in enumerate(sub_group_params):
            step_fn(param)
            self.swap_out_optimizer_state(param, async_swap=i < last)
        self.writer.flush()
        logger.debug(f"swapped out optimizer state of {len(sub_group_params)} sub-group params")
