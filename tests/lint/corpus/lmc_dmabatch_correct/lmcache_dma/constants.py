# SPDX-License-Identifier: Apache-2.0
# Third Party
from cuda.bindings import driver

STORE_SRC_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
COPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE

# One descriptor per (layer, k/v, chunk); keep well below driver limits.
MAX_DESCRIPTORS_PER_CALL = 4096
DEFAULT_STORE_WORKERS = 1
