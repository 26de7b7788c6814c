# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .coordinator import PartitionedParameterCoordinator
from .fetcher import AsyncPartitionedParameterFetcher, PartitionedParamStatus
from .offload_config import OffloadParamConfig

__all__ = [
    "AsyncPartitionedParameterFetcher",
    "OffloadParamConfig",
    "PartitionedParamStatus",
    "PartitionedParameterCoordinator",
]
