# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
"""Fine-grained activation offloading for pipeline-parallel training."""

from .config import FineGrainedOffloadConfig
from .manager import PipelineOffloadManager, group_prefetch_offload_commit, group_prefetch_offload_start
