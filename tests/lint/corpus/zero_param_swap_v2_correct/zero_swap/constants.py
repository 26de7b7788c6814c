# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Knobs for swapping partitioned parameters to NVMe."""

SWAP_BUFFER_COUNT = 4
SWAP_BUFFER_NUMEL = 1 << 24
SWAP_ALIGNMENT_NUMEL = 512
AIO_THREAD_COUNT = 2
SWAP_FILE_SUFFIX = ".tensor.swp"
STEP_SWAP_BUCKET_NUMEL = 1 << 22
