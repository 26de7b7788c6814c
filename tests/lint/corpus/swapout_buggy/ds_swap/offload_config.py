# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass

from .constants import (OFFLOAD_OPTIMIZER_BUFFER_COUNT_DEFAULT, OFFLOAD_OPTIMIZER_BUFFER_NUMEL_DEFAULT,
                        SWAP_OUT_QUEUE_DEPTH)


@dataclass
class OffloadOptimizerConfig:
    nvme_path: str
    buffer_count: int = OFFLOAD_OPTIMIZER_BUFFER_COUNT_DEFAULT
    buffer_numel: int = OFFLOAD_OPTIMIZER_BUFFER_NUMEL_DEFAULT
    queue_depth: int = SWAP_OUT_QUEUE_DEPTH
    pin_memory: bool = True
