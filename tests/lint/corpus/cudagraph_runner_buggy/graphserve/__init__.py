"""Fixed-shape decode step executed by CUDA graph replay with static I/O buffers."""

from .runner import GraphRunner, PendingStep
from .spec import GraphSpec, StaticIO

__all__ = ["GraphRunner", "GraphSpec", "PendingStep", "StaticIO"]
