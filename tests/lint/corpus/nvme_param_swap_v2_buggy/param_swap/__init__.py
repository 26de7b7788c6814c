# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Functionality of swapping partitioned parameters to/from (NVMe) storage devices.
"""
from .partitioned_param_swapper import AsyncPartitionedParameterSwapper, PartitionedParamStatus
