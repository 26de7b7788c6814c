from .py_executor import PyExecutor, PyTorchConfig
from .sampler import SampleState, TorchSampler
