"""Sizes and copy attributes for host offloading of KV blocks."""

from cuda.bindings import driver

TOKENS_PER_BLOCK = 32
BLOCK_BYTES = 2 * TOKENS_PER_BLOCK * 8 * 128 * 2  # K+V, 8 heads, dim 128, fp16
SPILL_WORKERS = 2

# Let the driver pick the fastest schedule for the source reads.
SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
