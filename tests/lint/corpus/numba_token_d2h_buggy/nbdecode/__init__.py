"""Greedy token selection on the GPU with host delivery on a worker thread (Numba)."""
from .detok import DetokenizerThread
from .sampler import GreedySampler, PendingTokens

__all__ = ["DetokenizerThread", "GreedySampler", "PendingTokens"]
