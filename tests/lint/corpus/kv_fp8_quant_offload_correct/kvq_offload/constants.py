from cuda.bindings import driver

FP8_E4M3_MAX = 448.0
MIN_SCALE = 1e-12

# Staging buffers are device memory written by the quant kernel, so the
# driver has to read them in stream order.
SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
COPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
