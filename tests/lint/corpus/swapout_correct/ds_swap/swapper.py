# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping optimizer tensors to/from (NVMe) storage devices.
"""
import os
from typing import Dict, List, Tuple

import torch
from deepspeed.accelerator import get_accelerator

from .buffer_pool import SwapBufferPool
from .constants import SWAP_FILE_SUFFIX
from .offload_config import OffloadOptimizerConfig
from .writer import AsyncSwapWriter, SwapOutRequest


class PartitionedOptimizerSwapper(object):

    def __init__(self, config: OffloadOptimizerConfig, rank: int):
        self.swap_folder = os.path.join(config.nvme_path, "zero_stage_3", "optimizer", f"rank{rank}")
        os.makedirs(self.swap_folder, exist_ok=True)
        self.buffer_pool = SwapBufferPool(config.buffer_count, config.buffer_numel)
        self.writer = AsyncSwapWriter(self.buffer_pool, config.queue_depth)
        self.swap_out_stream = get_accelerator().Stream()

    def _swap_path(self, param_id: int, state_name: str) -> str:
        return os.path.join(self.swap_folder, f"{param_id}_{state_name}{SWAP_FILE_SUFFIX}")

    @torch.no_grad()
    def swap_out_optimizer_state(self, param_id: int, state: Dict[str, torch.Tensor]) -> None:
        accelerator = get_accelerator()
        compute_done = accelerator.Event()
        compute_done.record(accelerator.current_stream())
        self.swap_out_stream.wait_event(compute_done)

        staged: List[Tuple[str, torch.Tensor]] = []
        with accelerator.stream(self.swap_out_stream):
            for state_name, tensor in state.items():
                swap_buffer = self.buffer_pool.allocate(tensor.numel())
                swap_buffer.copy_(tensor.view(-1), non_blocking=True)
                tensor.record_stream(self.swap_out_stream)
                staged.append((state_name, swap_buffer))

        copy_done = accelerator.Event()
        copy_done.record(self.swap_out_stream)
        for state_name, swap_buffer in staged:
            self.writer.submit(
                SwapOutRequest(path=self._swap_path(param_id, state_name), buffer=swap_buffer, event=copy_done))

    def swap_out_all(self, optimizer_states: Dict[int, Dict[str, torch.Tensor]]) -> None:
        for param_id, state in optimizer_states.items():
            self.swap_out_optimizer_state(param_id, state)
            for state_name in list(state.keys()):
                state[state_name] = torch.empty(0, dtype=torch.float32, device=accelerator_device())
        self.writer.synchronize_writes()


def accelerator_device() -> str:
    return get_accelerator().current_device_name()
