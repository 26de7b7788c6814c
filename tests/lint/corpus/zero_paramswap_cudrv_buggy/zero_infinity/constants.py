# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from cuda.bindings import driver

SWAP_BUFFER_COUNT = 5
SWAP_BUFFER_NUMEL = 100_000_000
PREFETCH_QUEUE_DEPTH = 4
PARAM_SWAP_FILE_SUFFIX = ".param.swp"

SWAP_OUT_SRC_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
SWAP_OUT_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
