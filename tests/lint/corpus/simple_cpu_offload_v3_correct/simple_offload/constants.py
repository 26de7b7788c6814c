# SPDX-License-Identifier: Apache-2.0
from cuda.bindings import driver as drv

SRC_ACCESS_ORDER_STREAM = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
SRC_ACCESS_ORDER_ANY = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

HOST_LOC = drv.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
DEVICE_LOC = drv.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE

# Upper bound on descriptors handed to one batch call.
MAX_DESCRIPTORS_PER_BATCH = 4096
