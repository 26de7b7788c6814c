from cuda.bindings import driver

SWAP_QUEUE_DEPTH = 64
DEFAULT_CHUNK_SIZE_TOKENS = 256

_ORDER = driver.CUmemcpySrcAccessOrder

# Source access order used by each kind of batched copy.
EVICT_SRC_ACCESS_ORDER = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
RESTORE_SRC_ACCESS_ORDER = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
# Prefix blocks are read from a staging buffer that the host fills before the call.
PREFIX_SRC_ACCESS_ORDER = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
