from .hybrid_optimizer import HybridDeviceOptimizer
from .optimizer_config import CPUOffloadConfig

__all__ = ["CPUOffloadConfig", "HybridDeviceOptimizer"]
