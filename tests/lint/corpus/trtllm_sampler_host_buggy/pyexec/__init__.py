from .py_executor import PyExecutor
from .sampler import SampleState, TorchSampler

__all__ = ["PyExecutor", "SampleState", "TorchSampler"]
