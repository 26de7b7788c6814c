# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Host offload of paged KV-cache blocks for the dynamic inference context."""

from .block_offloader import KVBlockOffloader

__all__ = ["KVBlockOffloader"]
