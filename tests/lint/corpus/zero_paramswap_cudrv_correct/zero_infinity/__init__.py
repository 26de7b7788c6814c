# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""ZeRO-Infinity parameter partition swapping driven through the CUDA driver API."""

from .param_swapper import AsyncPartitionedParameterSwapper, PartitionedParamStatus

__all__ = ["AsyncPartitionedParameterSwapper", "PartitionedParamStatus"]
