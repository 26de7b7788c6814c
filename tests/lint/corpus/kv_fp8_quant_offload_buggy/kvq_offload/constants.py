from cuda.bindings import driver

FP8_E4M3_MAX = 448.0
MIN_SCALE = 1e-12

# Let the driver schedule the reads of each batch however it likes; the
# batch as a whole is still enqueued on the copy stream.
SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
COPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
