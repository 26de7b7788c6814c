from .config import PyTorchConfig
from .py_executor import PyExecutor
from .sampler import SampleState, TorchSampler

__all__ = ["PyExecutor", "PyTorchConfig", "SampleState", "TorchSampler"]
