# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .partitioned_param_swapper import AsyncPartitionedParameterSwapper, PartitionedParamStatus

__all__ = ["AsyncPartitionedParameterSwapper", "PartitionedParamStatus"]
