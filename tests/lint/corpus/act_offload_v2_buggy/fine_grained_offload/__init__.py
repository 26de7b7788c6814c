# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .offload_config import ActivationOffloadConfig
from .offload_manager import ChunkOffloadHandler, group_offload_commit, offload_context

__all__ = ["ActivationOffloadConfig", "ChunkOffloadHandler", "group_offload_commit", "offload_context"]
