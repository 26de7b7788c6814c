# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""ZeRO-Infinity partitioned parameter swapping to NVMe."""

from .config import OffloadParamConfig
from .partitioned_param_swapper import AsyncPartitionedParameterSwapper, PartitionedParamStatus

__all__ = ["OffloadParamConfig", "AsyncPartitionedParameterSwapper", "PartitionedParamStatus"]
