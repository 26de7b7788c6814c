from .config import OptimizerOffloadConfig
from .hybrid_optimizer import HybridDeviceOptimizer

__all__ = ["HybridDeviceOptimizer", "OptimizerOffloadConfig"]
