from .block_allocator import ChunkBlockAllocator
from .chunk_manager import ChunkManager, ParamOpHook

__all__ = ["ChunkBlockAllocator", "ChunkManager", "ParamOpHook"]
