# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

OFFLOAD_OPTIMIZER = "offload_optimizer"
OFFLOAD_NVME_PATH = "nvme_path"
OFFLOAD_BUFFER_COUNT = "buffer_count"
OFFLOAD_PIPELINE_WRITE = "pipeline_write"

OPTIMIZER_SWAP_FOLDER = "optimizer"
SWAP_FILE_SUFFIX = ".tensor.swp"

DEFAULT_BUFFER_COUNT = 4
DEFAULT_BUFFER_NUMEL = 1 << 26
WRITER_QUEUE_DEPTH = 8
