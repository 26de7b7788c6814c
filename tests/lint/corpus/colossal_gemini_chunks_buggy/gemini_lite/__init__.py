from .chunk import Chunk, TensorState
from .chunk_manager import ChunkManager
from .placement_policy import StaticPlacementPolicy

__all__ = ["Chunk", "ChunkManager", "StaticPlacementPolicy", "TensorState"]
