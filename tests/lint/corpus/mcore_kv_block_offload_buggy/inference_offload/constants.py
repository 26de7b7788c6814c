# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from cuda.bindings import driver

KV_BLOCK_SIZE_TOKENS = 256

# Source ordering for batched copies whose sources are KV blocks in device memory.
DEVICE_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
# Source ordering for batched copies whose sources are pinned host blocks.
HOST_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM

CUDA_MEMCPY_DEVICE_TO_HOST = 2
