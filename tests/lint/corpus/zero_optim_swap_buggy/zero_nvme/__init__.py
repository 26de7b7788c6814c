# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Optimizer state swapping between device memory and NVMe."""

from .partitioned_optimizer_swapper import PartitionedOptimizerSwapper
