# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Defaults for the NVMe parameter swapper."""

SWAP_BUFFER_COUNT = 5
SWAP_BUFFER_SIZE = 100_000_000
AIO_ALIGNED_BYTES = 1024
MIN_AIO_BYTES = 1024 * 1024
SWAP_FOLDER_PREFIX = "zero_stage_3"
PARAM_FILE_SUFFIX = ".tensor.swp"
