# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Secondary (host) KV block tier driven through the CUDA runtime bindings."""
from .host_pool import HostBlockPool
from .manager import KVCacheHostOffloadManager
from .onboard import OnboardWorker

__all__ = ["HostBlockPool", "KVCacheHostOffloadManager", "OnboardWorker"]
