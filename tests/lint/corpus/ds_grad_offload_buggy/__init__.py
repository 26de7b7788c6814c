"""ZeRO-Offload style optimizer: GPU grads -> pinned host -> CPU Adam."""

from .cpu_optimizer import DeepSpeedCPUAdamLite
from .offload_optimizer import ZeroCPUOffloadOptimizer
