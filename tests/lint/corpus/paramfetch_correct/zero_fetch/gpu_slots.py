# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import List, Tuple

import torch
from deepspeed.accelerator import get_accelerator

from .offload_config import OffloadParamConfig


class PartitionSlotPool(object):
    """Pre-allocated device memory carved into fixed-size parameter slots."""

    def __init__(self, config: OffloadParamConfig):
        self.slot_numel = config.buffer_size
        self.flat_buffer = torch.empty(config.buffer_count * config.buffer_size,
                                       dtype=config.dtype,
                                       device=get_accelerator().current_device_name())
        self.free_slots: List[int] = list(range(config.buffer_count))

    def available(self) -> int:
        return len(self.free_slots)

    def acquire(self, numel: int) -> Tuple[int, torch.Tensor]:
        assert numel <= self.slot_numel, f"partition of {numel} does not fit slot of {self.slot_numel}"
        assert self.free_slots, "no free parameter slot"
        slot_id = self.free_slots.pop()
        return slot_id, self.flat_buffer.narrow(0, slot_id * self.slot_numel, numel)

    def release(self, slot_id: int) -> None:
        self.free_slots.append(slot_id)
