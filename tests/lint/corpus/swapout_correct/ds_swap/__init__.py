# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .offload_config import OffloadOptimizerConfig
from .swapper import PartitionedOptimizerSwapper

__all__ = ["OffloadOptimizerConfig", "PartitionedOptimizerSwapper"]
