# CUmemcpySrcAccessOrder values used for the batched copies:
# 1 = STREAM, 2 = DURING_API_CALL, 3 = ANY
STORE_SRC_ACCESS_ORDER = 1
LOAD_SRC_ACCESS_ORDER = 1

# Let the copy engine yield to concurrently running kernels.
PREFER_OVERLAP_WITH_COMPUTE = True

COPY_THREAD_NAME = "cpu-offload-copy"
