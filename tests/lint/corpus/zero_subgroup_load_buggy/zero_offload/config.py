# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from dataclasses import dataclass

OFFLOAD_CPU_DEVICE = "cpu"
OFFLOAD_NVME_DEVICE = "nvme"


@dataclass
class OffloadOptimizerConfig:
    device: str = OFFLOAD_CPU_DEVICE
    pin_memory: bool = True
    sub_group_size: int = 1_000_000_000
    ratio: float = 1.0

    def __post_init__(self):
        if self.device not in (OFFLOAD_CPU_DEVICE, OFFLOAD_NVME_DEVICE):
            raise ValueError(f"unsupported offload device {self.device}")
