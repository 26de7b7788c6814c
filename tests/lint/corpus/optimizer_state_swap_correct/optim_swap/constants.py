# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
from cuda.bindings import driver

OPTIMIZER_SWAP_FOLDER = "zero_optimizer"
OPTIMIZER_STATE_KEYS = ("exp_avg", "exp_avg_sq")

SWAP_BUFFER_COUNT = 4
SWAP_BUFFER_NUMEL = 1 << 26
AIO_BLOCK_SIZE = 1 << 20
AIO_QUEUE_DEPTH = 16

# Attributes for the batched device-to-host gather of optimizer states.
BATCH_COPY_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
BATCH_COPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
