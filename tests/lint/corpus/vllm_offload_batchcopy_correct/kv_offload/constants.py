from cuda.bindings import driver

# Direction tags carried on each transfer job.
GPU_TO_CPU = "gpu->cpu"
CPU_TO_GPU = "cpu->gpu"

STORE_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
LOAD_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM

COPY_THREAD_NAME = "kv-offload-copy"
JOB_QUEUE_MAXSIZE = 1024
