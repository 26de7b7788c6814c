# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Constants for the host-offloaded optimizer copy path."""

CUDART_LIBRARY_NAMES = ("libcudart.so", "libcudart.so.12", "libcudart.so.13")

# cudaMemcpyKind
CUDA_MEMCPY_HOST_TO_DEVICE = 1
CUDA_MEMCPY_DEVICE_TO_HOST = 2

# cuMemcpyBatchAsync needs a 12.8+ driver; below this many tensors per-tensor copies are cheaper.
BATCH_COPY_MIN_DRIVER_VERSION = 12080
BATCH_COPY_MIN_TENSORS = 4
