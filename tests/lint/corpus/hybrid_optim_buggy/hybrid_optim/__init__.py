# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""CPU/GPU hybrid optimizer used by the distributed optimizer when
``optimizer_cpu_offload`` is enabled."""

from .config import HybridOptimizerConfig
from .hybrid_optimizer import HybridDeviceOptimizer

__all__ = ["HybridOptimizerConfig", "HybridDeviceOptimizer"]
