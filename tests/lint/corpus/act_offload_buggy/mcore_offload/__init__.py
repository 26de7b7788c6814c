# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .config import FineGrainedOffloadConfig
from .manager import PipelineOffloadManager, group_prefetch_offload_commit, group_prefetch_offload_start

__all__ = [
    "FineGrainedOffloadConfig",
    "PipelineOffloadManager",
    "group_prefetch_offload_start",
    "group_prefetch_offload_commit",
]
