# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from cuda.bindings import driver

# Ordering used for the batched copies issued by the offload manager.
D2H_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
H2D_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM

DEFAULT_HOST_BLOCKS = 4096
