# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

from dataclasses import dataclass

OPTIMIZER_STATE_KEYS = ("exp_avg", "exp_avg_sq")
DEFAULT_BUFFER_COUNT = 4


@dataclass
class OffloadOptimizerConfig:
    device: str = "nvme"
    nvme_path: str = "/local_nvme"
    buffer_count: int = DEFAULT_BUFFER_COUNT
    pin_memory: bool = True
    pipeline_read: bool = True
    pipeline_write: bool = False
