# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Constants for swapping tensors to/from NVMe."""

AIO_BLOCK_SIZE = 1048576
AIO_QUEUE_DEPTH = 8
AIO_THREAD_COUNT = 1
AIO_SINGLE_SUBMIT = False
AIO_OVERLAP_EVENTS = True

MIN_AIO_BYTES = 1024**2
AIO_ALIGNED_BYTES = 1024

SWAP_FOLDER_PREFIX = "zero_stage_3"
SWAP_FILE_SUFFIX = ".tensor.swp"

DEFAULT_BUFFER_COUNT = 5
DEFAULT_BUFFER_SIZE = int(1e8)
