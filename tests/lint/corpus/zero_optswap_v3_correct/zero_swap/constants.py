# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Config keys and defaults for optimizer state swapping."""

OFFLOAD_OPTIMIZER = "offload_optimizer"
OFFLOAD_NVME_PATH = "nvme_path"
OFFLOAD_BUFFER_COUNT = "buffer_count"
OFFLOAD_BUFFER_COUNT_DEFAULT = 4
OFFLOAD_PIPELINE_WRITE = "pipeline_write"
OFFLOAD_PIPELINE_WRITE_DEFAULT = False
OFFLOAD_WRITER_THREADS = "thread_count"
OFFLOAD_WRITER_THREADS_DEFAULT = 2

AIO_ALIGNED_BYTES = 1024
MIN_SWAPPABLE_NUMEL = 1 << 16

SWAPPED_STATE_KEYS = ("exp_avg", "exp_avg_sq", "fp32_master")
