"""Overlap-scheduler sampling path with asynchronous host readback."""

from .executor import LlmRequest, PyExecutor
from .sampler import SampleState, SampleStateTensors, TorchSampler

__all__ = [
    "LlmRequest",
    "PyExecutor",
    "SampleState",
    "SampleStateTensors",
    "TorchSampler",
]
