# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Fine-grained activation offloading for transformer layers."""

from .config import ActivationOffloadConfig
from .manager import PipelineOffloadManager, group_prefetch_offload_commit

__all__ = ["ActivationOffloadConfig", "PipelineOffloadManager", "group_prefetch_offload_commit"]
