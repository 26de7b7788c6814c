# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .block_offload_manager import KVBlockOffloadManager
from .inference_context import PausableBlockContext

__all__ = ["KVBlockOffloadManager", "PausableBlockContext"]
