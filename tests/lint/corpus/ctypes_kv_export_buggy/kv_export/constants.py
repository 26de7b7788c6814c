# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
# Values mirrored from cuda_runtime_api.h / driver_types.h
CUDA_SUCCESS = 0
CUDA_MEMCPY_HOST_TO_DEVICE = 1
CUDA_MEMCPY_DEVICE_TO_HOST = 2
CUDA_STREAM_NON_BLOCKING = 0x1
CUDA_EVENT_DISABLE_TIMING = 0x2
CUDA_HOST_ALLOC_PORTABLE = 0x1

CUDART_CANDIDATES = ("libcudart.so", "libcudart.so.13", "libcudart.so.12")
DEFAULT_SLOT_BYTES = 64 << 20
