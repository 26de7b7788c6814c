from .config import CPUOffloadOptimizerConfig
from .hybrid_optimizer import HybridDeviceOptimizer

__all__ = ["CPUOffloadOptimizerConfig", "HybridDeviceOptimizer"]
