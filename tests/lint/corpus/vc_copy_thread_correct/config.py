"""Copy-thread settings."""

COPY_QUEUE_DEPTH = 256
COPY_THREAD_NAME = "kv-offload-copy"
CUDART_CANDIDATES = ("libcudart.so", "libcudart.so.12", "libcudart.so.13")
