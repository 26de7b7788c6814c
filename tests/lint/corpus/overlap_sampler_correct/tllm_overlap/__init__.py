from .executor import PyExecutor
from .sampler import SampleState, SampleStateTensors, TorchSampler

__all__ = ["PyExecutor", "SampleState", "SampleStateTensors", "TorchSampler"]
