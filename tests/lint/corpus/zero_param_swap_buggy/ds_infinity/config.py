# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from dataclasses import dataclass

from .constants import (AIO_BLOCK_SIZE_DEFAULT, AIO_QUEUE_DEPTH_DEFAULT, AIO_THREAD_COUNT_DEFAULT,
                        OFFLOAD_PARAM_BUFFER_COUNT_DEFAULT, OFFLOAD_PARAM_BUFFER_SIZE_DEFAULT)


@dataclass
class DeepSpeedZeroOffloadParamConfig:
    device: str = "nvme"
    nvme_path: str = "/local_nvme"
    buffer_count: int = OFFLOAD_PARAM_BUFFER_COUNT_DEFAULT
    buffer_size: int = int(OFFLOAD_PARAM_BUFFER_SIZE_DEFAULT)
    pin_memory: bool = True
    aio_block_size: int = AIO_BLOCK_SIZE_DEFAULT
    aio_queue_depth: int = AIO_QUEUE_DEPTH_DEFAULT
    aio_thread_count: int = AIO_THREAD_COUNT_DEFAULT
