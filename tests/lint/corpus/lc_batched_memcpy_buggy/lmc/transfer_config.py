"""Transfer constants shared by the connector, the allocator and the backends."""

from cuda.bindings import driver

CHUNK_SIZE = 256
PIN_POOL_BYTES = 8 << 30
LOCAL_DISK_PATH = "/tmp/lmcache_disk"

# Attributes applied to every copy of the batched offload.
SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
COPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
