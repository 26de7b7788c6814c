# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping optimizer tensors to/from (NVMe) storage devices.
"""
import os
from typing import Dict, List

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .buffer_pool import PinnedSwapBufferPool
from .config import OptimizerSwapConfig
from .constants import SWAP_FILE_SUFFIX
from .swap_writer import AsyncSwapWriter, SwapOutRequest


class OptimizerStateSwapper:

    def __init__(self, config: OptimizerSwapConfig, rank: int = 0):
        self.config = config
        self.swap_folder = os.path.join(config.nvme_path, "zero_stage_3", f"optimizer_rank{rank}")
        os.makedirs(self.swap_folder, exist_ok=True)
        self.swap_stream = get_accelerator().Stream()
        self.buffer_pool = PinnedSwapBufferPool(config.buffer_count, config.buffer_numel)
        self.writer = AsyncSwapWriter(self.buffer_pool, config.thread_count)
        self.swapped_numel: Dict[int, int] = {}

    def _swap_path(self, sub_group_id: int, key: str) -> str:
        return os.path.join(self.swap_folder, f"{sub_group_id}_{key}{SWAP_FILE_SUFFIX}")

    def swap_out_optimizer_state(self, sub_group_id: int, state: Dict[str, torch.Tensor]) -> None:
        """Stages fp32 optimizer state of one sub group into pinned buffers and writes them out."""
        staged: List[tuple] = []
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.swap_stream):
            for key, tensor in state.items():
                numel = tensor.numel()
                if numel > self.buffer_pool.numel:
                    raise ValueError(f"state {key} of sub group {sub_group_id} exceeds swap buffer size")
                index = self.buffer_pool.acquire()
                self.buffer_pool.get(index).narrow(0, 0, numel).copy_(tensor.view(-1), non_blocking=True)
                tensor.record_stream(self.swap_stream)
                staged.append((key, index, numel))
            staged_event = get_accelerator().Event()
            staged_event.record()

        for key, index, numel in staged:
            self.writer.submit(SwapOutRequest(self._swap_path(sub_group_id, key), index, numel, staged_event))
        self.swapped_numel[sub_group_id] = sum(n for _, _, n in staged)

    def synchronize_writes(self) -> None:
        total = self.writer.wait()
        logger.debug(f"optimizer swapper flushed {total} elements")
