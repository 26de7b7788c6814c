from .engine import DecoupledCheckpointEngine
from .writer import ShardWriter

__all__ = ["DecoupledCheckpointEngine", "ShardWriter"]
