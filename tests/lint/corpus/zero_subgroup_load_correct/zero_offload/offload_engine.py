# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from typing import List

import torch

from deepspeed.utils import logger

from .config import OffloadOptimizerConfig
from .partition_loader import PartitionLoader
from .pinned_pool import SubGroupPinnedBuffers


class SubGroupOffloadEngine(object):
    """Steps the host optimizer one sub-group at a time and writes the
    updated weights back into the device fp16 partitions."""

    def __init__(self, config: OffloadOptimizerConfig, fp16_partitions: List[torch.Tensor],
                 fp32_partitions: List[torch.Tensor], cpu_optimizer):
        assert len(fp16_partitions) == len(fp32_partitions)
        self.config = config
        self.fp16_partitions = fp16_partitions
        self.fp32_partitions = fp32_partitions
        self.cpu_optimizer = cpu_optimizer
        device = fp16_partitions[0].device
        dtype = fp16_partitions[0].dtype
        max_numel = max(p.numel() for p in fp16_partitions)
        self.host_buffers = SubGroupPinnedBuffers(dtype, pin_memory=config.pin_memory)
        self.loader = PartitionLoader(max_numel, dtype, device)

    def _optimizer_step(self, sub_group_id: int) -> torch.Tensor:
        fp32_partition = self.fp32_partitions[sub_group_id]
        self.cpu_optimizer.step_sub_group(sub_group_id, fp32_partition)
        host_fp16 = self.host_buffers.get(sub_group_id, fp32_partition.numel())
        host_fp16.copy_(fp32_partition)
        return host_fp16

    def step(self):
        compute_stream = torch.accelerator.current_stream()
        for sub_group_id, fp16_partition in enumerate(self.fp16_partitions):
            host_fp16 = self._optimizer_step(sub_group_id)
            staged = self.loader.load(host_fp16)
            compute_stream.wait_event(self.loader.loaded)
            fp16_partition.copy_(staged.view_as(fp16_partition))
            self.loader.mark_consumed(compute_stream)
        torch.accelerator.synchronize()
        logger.debug(f"stepped {len(self.fp16_partitions)} sub-groups, "
                     f"{self.host_buffers.total_bytes()} pinned bytes")
