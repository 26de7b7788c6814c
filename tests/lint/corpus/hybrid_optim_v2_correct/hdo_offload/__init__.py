# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .config import OptimizerOffloadConfig
from .hybrid_optimizer import HybridDeviceOffloadOptimizer

__all__ = ["HybridDeviceOffloadOptimizer", "OptimizerOffloadConfig"]
