# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .hybrid_optimizer import HybridDeviceOptimizer
from .optimizer_config import OptimizerConfig

__all__ = ["HybridDeviceOptimizer", "OptimizerConfig"]
