# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Swapping of ZeRO-3 parameter partitions between pinned host memory and GPU."""

from zeroswap.buffer_pool import SwapBufferPool
from zeroswap.coordinator import PartitionedParameterCoordinator
from zeroswap.hooks import register_swap_hooks
from zeroswap.swapper import AsyncPartitionedParameterSwapper
