"""Numba CUDA decode step: softmax on device, top-token pick on the host."""
from .decoder import StepDecoder

__all__ = ["StepDecoder"]
