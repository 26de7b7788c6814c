from .py_executor import OverlapExecutor
from .sampler import TorchSampler

__all__ = ["OverlapExecutor", "TorchSampler"]
