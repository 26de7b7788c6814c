# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import Dict

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils.logging import logger


class PinnedPartitionStore(object):
    """CPU (pinned) home of partitioned fp16 parameters."""

    def __init__(self, max_in_cpu: int, pin_memory: bool = True):
        self.max_in_cpu = max_in_cpu
        self.pin_memory = pin_memory
        self.numel_in_cpu = 0
        self._partitions: Dict[int, torch.Tensor] = {}

    def offload(self, ds_id: int, partition: torch.Tensor) -> None:
        assert self.numel_in_cpu + partition.numel() <= self.max_in_cpu, "max_in_cpu exceeded"
        host = partition.detach().to("cpu")
        if self.pin_memory:
            host = get_accelerator().pin_memory(host)
        self._partitions[ds_id] = host
        self.numel_in_cpu += host.numel()
        logger.debug(f"offloaded param {ds_id} ({host.numel()} elements)")

    def numel(self, ds_id: int) -> int:
        return self._partitions[ds_id].numel()

    def copy_into(self, ds_id: int, device_slot: torch.Tensor) -> None:
        # expect: KVG004
        device_slot.copy_(self._partitions[ds_id], non_blocking=True)
