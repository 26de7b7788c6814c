"""Write-through staging of full KV blocks into pinned host memory (CuPy)."""
from .config import StreamSet
from .engine import KVStager
from .scheduler import WriteThroughScheduler

__all__ = ["KVStager", "StreamSet", "WriteThroughScheduler"]
