from .config import CPUOffloadOptimizerConfig
from .cpu_offload_optimizer import CPUOffloadDistributedOptimizer
from .param_and_grad_buffer import ParamAndGradBucket, ParamAndGradBucketGroup

__all__ = [
    "CPUOffloadDistributedOptimizer",
    "CPUOffloadOptimizerConfig",
    "ParamAndGradBucket",
    "ParamAndGradBucketGroup",
]
