# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass

import torch

OFFLOAD_PARAM_BUFFER_COUNT_DEFAULT = 5
OFFLOAD_PARAM_BUFFER_SIZE_DEFAULT = 100_000_000
OFFLOAD_PARAM_MAX_IN_CPU_DEFAULT = 1_000_000_000
PREFETCH_BUCKET_SIZE_DEFAULT = 50_000_000


@dataclass
class OffloadParamConfig:
    buffer_count: int = OFFLOAD_PARAM_BUFFER_COUNT_DEFAULT
    buffer_size: int = OFFLOAD_PARAM_BUFFER_SIZE_DEFAULT
    max_in_cpu: int = OFFLOAD_PARAM_MAX_IN_CPU_DEFAULT
    prefetch_bucket_size: int = PREFETCH_BUCKET_SIZE_DEFAULT
    pin_memory: bool = True
    dtype: torch.dtype = torch.float16
