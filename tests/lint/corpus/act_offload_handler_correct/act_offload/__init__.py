# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
"""CPU offloading of activations saved for backward, grouped per transformer layer."""

from .config import ActivationOffloadConfig
from .handler import GroupOffloadHandler
from .hooks import CpuOffloadHookWithOffloadHandler, get_cpu_offload_context

__all__ = ["ActivationOffloadConfig", "GroupOffloadHandler", "CpuOffloadHookWithOffloadHandler",
           "get_cpu_offload_context"]
