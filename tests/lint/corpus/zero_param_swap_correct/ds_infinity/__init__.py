# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""ZeRO-Infinity parameter swapping to NVMe storage."""

from .config import DeepSpeedZeroOffloadParamConfig
from .partitioned_param_swapper import AsyncPartitionedParameterSwapper, PartitionedParamStatus
