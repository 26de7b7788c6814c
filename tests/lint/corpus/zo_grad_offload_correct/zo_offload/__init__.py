from .cpu_adam import DeepSpeedCPUAdamLite
from .grad_offload import ZeroOffloadGradHandler

__all__ = ["DeepSpeedCPUAdamLite", "ZeroOffloadGradHandler"]
