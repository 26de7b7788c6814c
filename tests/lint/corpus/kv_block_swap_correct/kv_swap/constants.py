# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from cuda.bindings import driver

DEFAULT_HOST_BLOCKS = 4096

# Source access order handed to cuMemcpyBatchAsync for each direction.
D2H_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
H2D_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM

POLL_INTERVAL_S = 0.0005
