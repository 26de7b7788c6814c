# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .manager import PipelineOffloadManager, group_offload_commit, group_offload_start

__all__ = ["PipelineOffloadManager", "group_offload_commit", "group_offload_start"]
