# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import os
from typing import Dict, List, Tuple

import torch

from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .async_swapper import AsyncPartitionSwapper
from .buffer_pool import PinnedSwapBufferPool
from .constants import DEFAULT_SWAP_BUFFER_COUNT, GRAD_SWAP_FOLDER, OFFLOAD_GRAD_TIMER
from .utils import copy_grad_partition, swap_path


class PartitionedGradOffloader(object):
    """Moves this rank's gradient partitions to pinned buffers and on to NVMe."""

    def __init__(self, ds_config: Dict, partition_numel: int, dtype: torch.dtype, reduction_stream=None, timers=None):
        zero_cfg = ds_config.get("zero_optimization", {})
        self.overlap_comm = zero_cfg.get("overlap_comm", False)
        nvme_path = zero_cfg.get("offload_optimizer", {}).get("nvme_path", "/local_nvme")
        self.swap_folder = os.path.join(nvme_path, GRAD_SWAP_FOLDER)
        os.makedirs(self.swap_folder, exist_ok=True)

        self.timers = timers
        self.reduction_stream = reduction_stream
        self.offload_stream = get_accelerator().Stream()
        self.buffer_pool = PinnedSwapBufferPool(DEFAULT_SWAP_BUFFER_COUNT, partition_numel, dtype)
        self.swapper = AsyncPartitionSwapper(self.buffer_pool, timers)

    def offload_partitions(self, partitions: List[Tuple[int, torch.nn.Parameter, int, int]]) -> None:
        """``partitions``: (param_id, param, start, numel) of the grads this rank owns."""
        if self.timers:
            self.timers(OFFLOAD_GRAD_TIMER).start()

        if self.overlap_comm:
            self.offload_stream.wait_stream(self.reduction_stream)

        buffers, paths = [], []
        with get_accelerator().stream(self.offload_stream):
            for param_id, param, start, numel in partitions:
                buf = copy_grad_partition(self.buffer_pool.get(), param.grad, start, numel)
                buffers.append(buf)
                paths.append(swap_path(self.swap_folder, param_id))
                param.grad.record_stream(self.offload_stream)
            copy_done = get_accelerator().Event()
            copy_done.record(self.offload_stream)

        self.swapper.swap_out_async(buffers, paths, copy_done)
        if self.timers:
            self.timers(OFFLOAD_GRAD_TIMER).stop()
        logger.debug(f"offloaded {len(partitions)} grad partitions")

    def finish(self) -> None:
        self.swapper.wait()
