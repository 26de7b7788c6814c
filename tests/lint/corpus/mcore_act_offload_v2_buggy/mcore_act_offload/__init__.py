# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
from .offload_config import ActivationOffloadConfig
from .offload_context import get_cpu_offload_context
from .offload_handler import AsyncGroupOffloadHandler

__all__ = ["ActivationOffloadConfig", "AsyncGroupOffloadHandler", "get_cpu_offload_context"]
