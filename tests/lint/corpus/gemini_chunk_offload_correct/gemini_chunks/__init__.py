from .chunk import Chunk, TensorState
from .chunk_manager import ChunkManager
from .placement_policy import AutoPlacementPolicy

__all__ = ["AutoPlacementPolicy", "Chunk", "ChunkManager", "TensorState"]
