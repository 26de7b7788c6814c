from .generation import GenerationConfig, sample
from .streamers import AsyncTextStreamer, TokenChunk

__all__ = ["GenerationConfig", "sample", "AsyncTextStreamer", "TokenChunk"]
