# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Constants for swapping gradient partitions to NVMe.
"""

GRAD_SWAP_FOLDER = "zero_grad_swap"
SWAP_FILE_SUFFIX = ".tensor.swp"
SWAP_NUMEL_ALIGNMENT = 1024
DEFAULT_SWAP_BUFFER_COUNT = 4
ASYNC_SWAP_OUT_TIMER = "async_grad_swap_out"
OFFLOAD_GRAD_TIMER = "offload_grad_partitions"
