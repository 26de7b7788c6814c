from pyexecutor.py_executor import PyExecutor
from pyexecutor.sampler import TorchSampler

__all__ = ["PyExecutor", "TorchSampler"]
