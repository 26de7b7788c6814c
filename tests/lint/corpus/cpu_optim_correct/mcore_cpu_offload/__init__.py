from .config import CPUOffloadConfig
from .hybrid_optimizer import HybridDeviceOptimizer

__all__ = ["CPUOffloadConfig", "HybridDeviceOptimizer"]
