# SPDX-License-Identifier: Apache-2.0
from cuda.bindings import driver as drv

# cuMemcpyBatchAsync first shipped with the 12.8 driver.
MIN_DRIVER_VERSION = 12080

SRC_ORDER_STREAM = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
SRC_ORDER_ANY = drv.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

LOC_DEVICE = drv.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
LOC_HOST = drv.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST

# source access order per copy direction
STORE_SRC_ORDER = SRC_ORDER_STREAM
LOAD_SRC_ORDER = SRC_ORDER_ANY

COPY_STREAM_PRIORITY = -1
