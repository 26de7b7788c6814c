# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
"""Constants shared by the decoupled checkpoint writer."""

# tensors at or below this size are serialized into the checkpoint header
SMALL_TENSOR_BYTES = 64 * 1024
PINNED_ARENA_BYTES = 2 * 1024 * 1024 * 1024
ARENA_ALIGNMENT = 4096
WRITER_QUEUE_DEPTH = 8
CKPT_MAGIC = b"DSFC0001"

# cudaMemcpyKind / flag values from driver_types.h
CUDA_MEMCPY_DEVICE_TO_HOST = 2
CUDA_STREAM_NON_BLOCKING = 0x1
CUDA_EVENT_DISABLE_TIMING = 0x2
