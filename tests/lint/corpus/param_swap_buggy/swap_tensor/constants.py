# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Constants for NVMe parameter swapping."""

SWAP_FOLDER_PREFIX = "zero_stage_3"
SWAP_FILE_SUFFIX = ".tensor.swp"

SWAP_BUFFER_COUNT = "buffer_count"
SWAP_BUFFER_COUNT_DEFAULT = 5
SWAP_BUFFER_SIZE = "buffer_size"
SWAP_BUFFER_SIZE_DEFAULT = 100_000_000

SWAP_WRITER_THREADS = "writer_threads"
SWAP_WRITER_THREADS_DEFAULT = 2

AIO_ALIGNED_BYTES = 1024
