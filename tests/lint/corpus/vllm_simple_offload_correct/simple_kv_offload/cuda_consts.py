# SPDX-License-Identifier: Apache-2.0
"""cuda-python driver enums used by the batch copy path."""
from cuda.bindings import driver as drv

SRC_ACCESS_ORDER_STREAM = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
SRC_ACCESS_ORDER_ANY = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

MEM_LOCATION_DEVICE = drv.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
MEM_LOCATION_HOST = drv.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST

MEMCPY_FLAG_PREFER_OVERLAP = drv.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE

# Transfer tags carried in the copy-thread payload.
TAG_STORE = "store"  # GPU -> CPU
TAG_LOAD = "load"  # CPU -> GPU
