from cuda.bindings import driver

_ORDER = driver.CUmemcpySrcAccessOrder

# Sampled ids / logprobs are produced by kernels queued just before the copy.
OUTPUT_COPY_SRC_ORDER = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
# Input ids come from a short-lived host staging array.
INPUT_COPY_SRC_ORDER = _ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
FUTURE_MAP_SIZE = 4096
