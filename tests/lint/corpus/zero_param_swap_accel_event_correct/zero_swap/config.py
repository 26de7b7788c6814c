# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

from dataclasses import dataclass, field
from typing import Any, Dict

from .constants import (AIO_BLOCK_SIZE, AIO_OVERLAP_EVENTS, AIO_QUEUE_DEPTH, AIO_SINGLE_SUBMIT, AIO_THREAD_COUNT,
                        DEFAULT_BUFFER_COUNT, DEFAULT_BUFFER_SIZE)


@dataclass
class AioConfig:
    block_size: int = AIO_BLOCK_SIZE
    queue_depth: int = AIO_QUEUE_DEPTH
    thread_count: int = AIO_THREAD_COUNT
    single_submit: bool = AIO_SINGLE_SUBMIT
    overlap_events: bool = AIO_OVERLAP_EVENTS


@dataclass
class OffloadParamConfig:
    nvme_path: str = "/local_nvme"
    buffer_count: int = DEFAULT_BUFFER_COUNT
    buffer_size: int = DEFAULT_BUFFER_SIZE
    max_in_cpu: int = int(1e9)
    pin_memory: bool = True
    aio: AioConfig = field(default_factory=AioConfig)

    @classmethod
    def from_dict(cls, ds_config: Dict[str, Any]) -> "OffloadParamConfig":
        offload = ds_config.get("zero_optimization", {}).get("offload_param", {})
        aio = AioConfig(**ds_config.get("aio", {}))
        return cls(nvme_path=offload.get("nvme_path", cls.nvme_path),
                   buffer_count=offload.get("buffer_count", DEFAULT_BUFFER_COUNT),
                   buffer_size=offload.get("buffer_size", DEFAULT_BUFFER_SIZE),
                   max_in_cpu=offload.get("max_in_cpu", int(1e9)),
                   pin_memory=offload.get("pin_memory", True),
                   aio=aio)
