# CUmemcpySrcAccessOrder values accepted by cuMemcpyBatchAsync
SRC_ACCESS_ORDER_STREAM = 1
SRC_ACCESS_ORDER_DURING_API_CALL = 2
SRC_ACCESS_ORDER_ANY = 3

# CUmemcpyFlags
MEMCPY_FLAG_DEFAULT = 0x0
MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE = 0x1

# the driver rejects very large descriptor arrays on some platforms
MAX_DESCRIPTORS_PER_CALL = 8192
