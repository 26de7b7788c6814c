"""Swaps preempted requests' KV blocks out to pinned host memory with numba, on a torch
side stream (numba sees torch's stream through cuda.external_stream)."""
from .swapper import NumbaSwapper

__all__ = ["NumbaSwapper"]
