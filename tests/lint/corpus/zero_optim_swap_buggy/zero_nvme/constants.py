# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from cuda.bindings import driver

OFFLOAD_OPTIMIZER_BUFFER_COUNT_DEFAULT = 4
OFFLOAD_OPTIMIZER_WRITER_THREADS_DEFAULT = 2
SWAP_FOLDER_NAME = "zero_stage_3"
SWAP_FILE_SUFFIX = ".tensor.swp"
AIO_ALIGNED_BYTES = 1024

# Memcpy attributes for optimizer state gathered from device partitions.
OPTIMIZER_SWAP_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
OPTIMIZER_SWAP_MEMCPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
