from cuda.bindings import driver

# Source ordering for the block-table snapshot copies.
BLOCK_TABLE_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

# Source ordering for per-request bookkeeping copies (cudaMemcpySrcAccessOrder value).
REQUEST_META_SRC_ACCESS_ORDER = 2

MAX_REQUESTS = 1024
MAX_BLOCKS_PER_REQUEST = 256
KV_BLOCK_SIZE_TOKENS = 256
