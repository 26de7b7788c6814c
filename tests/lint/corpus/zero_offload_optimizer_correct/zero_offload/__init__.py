from .config import OffloadDeviceEnum, OffloadOptimizerConfig
from .engine import OffloadEngine
from .stage_offload import ZeroOffloadOptimizer

__all__ = ["OffloadDeviceEnum", "OffloadOptimizerConfig", "OffloadEngine", "ZeroOffloadOptimizer"]
