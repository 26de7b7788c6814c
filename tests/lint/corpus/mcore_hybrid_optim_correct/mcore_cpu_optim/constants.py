# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Copy attributes used by the CPU-offloaded optimizer."""
from cuda.bindings import driver

_ORDER = driver.CUmemcpySrcAccessOrder

# grads: device shards -> pinned host
GRAD_D2H_SRC_ACCESS_ORDER = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
# masters: pinned host -> device shards
PARAM_H2D_SRC_ACCESS_ORDER = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM

OVERLAP_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
DEFAULT_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_DEFAULT
