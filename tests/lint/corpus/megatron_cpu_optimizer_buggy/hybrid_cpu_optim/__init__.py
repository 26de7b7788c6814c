from .cpu_offload_optimizer import CPUOffloadDistributedOptimizer
from .optimizer_config import CPUOffloadOptimizerConfig

__all__ = ["CPUOffloadDistributedOptimizer", "CPUOffloadOptimizerConfig"]
