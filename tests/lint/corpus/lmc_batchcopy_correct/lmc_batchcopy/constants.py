# SPDX-License-Identifier: Apache-2.0
# Third Party
from cuda.bindings import driver

# Batched D2H copies of KV chunks out of the paged cache.
KV_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
KV_MEMCPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
MAX_COPIES_PER_BATCH = 4096
MAX_INFLIGHT_OFFLOADS = 4
