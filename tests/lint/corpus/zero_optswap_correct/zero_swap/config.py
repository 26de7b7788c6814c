# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from dataclasses import dataclass
from typing import Any, Dict

from .constants import (DEFAULT_BUFFER_COUNT, DEFAULT_BUFFER_NUMEL, OFFLOAD_BUFFER_COUNT, OFFLOAD_NVME_PATH,
                        OFFLOAD_OPTIMIZER, OFFLOAD_PIPELINE_WRITE, WRITER_QUEUE_DEPTH)


@dataclass
class OptimizerSwapConfig:
    nvme_path: str
    buffer_count: int = DEFAULT_BUFFER_COUNT
    buffer_numel: int = DEFAULT_BUFFER_NUMEL
    pipeline_write: bool = True
    queue_depth: int = WRITER_QUEUE_DEPTH

    @classmethod
    def from_zero_config(cls, zero_config: Dict[str, Any]) -> "OptimizerSwapConfig":
        offload = zero_config.get(OFFLOAD_OPTIMIZER, {}) or {}
        return cls(
            nvme_path=offload.get(OFFLOAD_NVME_PATH, "/local_nvme"),
            buffer_count=offload.get(OFFLOAD_BUFFER_COUNT, DEFAULT_BUFFER_COUNT),
            pipeline_write=offload.get(OFFLOAD_PIPELINE_WRITE, True),
        )
