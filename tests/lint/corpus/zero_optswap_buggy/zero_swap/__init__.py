# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Swapping of ZeRO-3 optimizer state partitions to NVMe."""

from .config import OptimizerSwapConfig
from .optimizer_swapper import PartitionedOptimizerSwapper

__all__ = ["OptimizerSwapConfig", "PartitionedOptimizerSwapper"]
