# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Pipelined swapping of optimizer state tensors to NVMe."""

from .engine import ZeroInfinityOptimizerOffload
from .swapper import PipelinedOptimizerSwapper

__all__ = ["ZeroInfinityOptimizerOffload", "PipelinedOptimizerSwapper"]
