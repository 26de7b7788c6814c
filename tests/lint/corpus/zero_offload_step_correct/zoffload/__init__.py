from .config import AdamConfig, DeepSpeedZeroOffloadOptimizerConfig, OffloadDeviceEnum, ZeroConfig
from .stage_offload import ZeroOffloadOptimizer

__all__ = [
    "AdamConfig",
    "DeepSpeedZeroOffloadOptimizerConfig",
    "OffloadDeviceEnum",
    "ZeroConfig",
    "ZeroOffloadOptimizer",
]
