from .py_executor import PyExecutor
from .sampler import TorchSampler

__all__ = ["PyExecutor", "TorchSampler"]
