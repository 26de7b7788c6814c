# SPDX-License-Identifier: Apache-2.0
# Third Party
from cuda.bindings import driver

# Store path: paged KV blocks -> pinned staging slots.
STORE_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
# Load path: pinned staging slots -> paged KV blocks.
LOAD_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
MEMCPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
STAGING_ALIGNMENT = 4096
