from .engine import DecodeLoop
from .sampler import GreedySampler

__all__ = ["DecodeLoop", "GreedySampler"]
