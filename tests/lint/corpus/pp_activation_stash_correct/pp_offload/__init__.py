# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
"""1F1B pipeline schedule that parks recompute checkpoints of in-flight microbatches in host memory."""

from .activation_stash import MicrobatchActivationStash
from .config import PipelineOffloadConfig
from .schedules import forward_backward_pipelining_with_offload

__all__ = ["MicrobatchActivationStash", "PipelineOffloadConfig", "forward_backward_pipelining_with_offload"]
