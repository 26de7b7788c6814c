# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .hooks import ActivationOffloadContext, group_prefetch_offload_commit
from .offload_handler import ChunkOffloadHandler

__all__ = ["ActivationOffloadContext", "ChunkOffloadHandler", "group_prefetch_offload_commit"]
