# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .mlp import MLP
from .offload_config import ActivationOffloadConfig
from .offload_manager import ChunkOffloadHandler, PipelineOffloadManager

__all__ = ["ActivationOffloadConfig", "ChunkOffloadHandler", "MLP", "PipelineOffloadManager"]
