from .grad_chunk import GradChunk
from .hybrid_adam import HybridAdam
from .offloader import AsyncGradOffloader

__all__ = ["GradChunk", "HybridAdam", "AsyncGradOffloader"]
