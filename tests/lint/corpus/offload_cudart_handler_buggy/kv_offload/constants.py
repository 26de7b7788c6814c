# Subset of cuda_runtime_api.h used by the offloading handlers.
CUDART_LIB_CANDIDATES = ("libcudart.so", "libcudart.so.12", "libcudart.so.13")

CUDA_SUCCESS = 0
CUDA_ERROR_NOT_READY = 600

# cudaMemcpyKind
CUDA_MEMCPY_HOST_TO_DEVICE = 1
CUDA_MEMCPY_DEVICE_TO_HOST = 2

# cudaEventCreateWithFlags
CUDA_EVENT_DISABLE_TIMING = 0x02
