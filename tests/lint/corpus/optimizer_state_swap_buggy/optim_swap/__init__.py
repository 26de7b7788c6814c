# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Swapping of fp32 optimizer states between device memory, pinned host buffers and NVMe."""

from .optimizer_swapper import PartitionedOptimizerStateSwapper

__all__ = ["PartitionedOptimizerStateSwapper"]
