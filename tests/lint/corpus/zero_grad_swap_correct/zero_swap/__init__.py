# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Swapping of partitioned gradients to (NVMe) storage devices."""

from .async_swapper import AsyncTensorSwapper
from .gradient_swapper import GradientSwapConfig, PartitionedGradientSwapper

__all__ = ["AsyncTensorSwapper", "GradientSwapConfig", "PartitionedGradientSwapper"]
