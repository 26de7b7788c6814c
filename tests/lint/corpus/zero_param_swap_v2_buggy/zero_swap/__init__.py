# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from .constants import SWAP_BUFFER_COUNT, SWAP_BUFFER_NUMEL
from .buffer_pool import PinnedSwapBufferPool, SwapBuffer
from .partitioned_param_swapper import AsyncPartitionedParameterSwapper, SwapConfig
from .optimizer_hooks import ZeroInfinityStepHook

__all__ = [
    "SWAP_BUFFER_COUNT",
    "SWAP_BUFFER_NUMEL",
    "PinnedSwapBufferPool",
    "SwapBuffer",
    "AsyncPartitionedParameterSwapper",
    "SwapConfig",
    "ZeroInfinityStepHook",
]
