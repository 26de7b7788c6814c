import os

DEFAULT_OFFLOAD_DIR = os.path.expanduser("~/flexgen_offload_dir")
NUM_IO_WORKERS = 4
RELAY_BUFFER_BYTES = 64 << 20
KV_FILE_SUFFIX = ".kv"

# cudaMemcpyKind
CUDA_MEMCPY_DEVICE_TO_HOST = 2
# cudaEventDisableTiming
CUDA_EVENT_DISABLE_TIMING = 0x2
