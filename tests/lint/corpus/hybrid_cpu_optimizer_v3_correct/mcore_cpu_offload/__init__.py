from .config import HybridOptimizerConfig
from .hybrid_optimizer import HybridDeviceOptimizer

__all__ = ["HybridOptimizerConfig", "HybridDeviceOptimizer"]
