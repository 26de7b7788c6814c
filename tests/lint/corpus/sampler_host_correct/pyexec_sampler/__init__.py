"""Torch sampler with asynchronous host copies for the PyTorch executor loop."""

from .py_executor import PyExecutor
from .sample_state import SampleState, SampleStateTensors, ScheduledRequests
from .sampler import TorchSampler, TorchSamplerArgs

__all__ = [
    "PyExecutor",
    "SampleState",
    "SampleStateTensors",
    "ScheduledRequests",
    "TorchSampler",
    "TorchSamplerArgs",
]
