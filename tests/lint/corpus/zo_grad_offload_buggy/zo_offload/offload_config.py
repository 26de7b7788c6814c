"""ZeRO-Offload gradient path settings."""
from cuda.bindings import driver

REDUCE_BUCKET_SIZE = 50_000_000
CPU_OFFLOAD_PIN_MEMORY = True
# one batched D2H per bucket; let the driver overlap it with the next bucket's backward
GRAD_D2H_SRC_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
GRAD_D2H_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
