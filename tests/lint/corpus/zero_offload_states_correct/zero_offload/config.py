# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass

from .constants import OFFLOAD_DEVICE_CPU


@dataclass
class OffloadStatesConfig:
    device: str = OFFLOAD_DEVICE_CPU
    pin_memory: bool = True
    non_blocking: bool = True
    check_finite: bool = False
    empty_cache: bool = True
