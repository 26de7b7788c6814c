# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""
Constants for swapping optimizer tensors to/from (NVMe) storage devices.
"""

OFFLOAD_OPTIMIZER_BUFFER_COUNT_DEFAULT = 4
OFFLOAD_OPTIMIZER_BUFFER_NUMEL_DEFAULT = 1 << 24
SWAP_OUT_QUEUE_DEPTH = 8
SWAP_FILE_SUFFIX = ".tensor.swp"
SWAP_WRITER_THREAD_NAME = "ds-swap-out-writer"
SWAP_OUT_TIMER = "swap_out_optimizer_state"
SWAP_WAIT_TIMER = "swap_out_wait"
