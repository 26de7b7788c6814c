from mm_cache.encoder_cache import EncoderOutputCache
from mm_cache.runner import MultiModalEncoderRunner

__all__ = ["EncoderOutputCache", "MultiModalEncoderRunner"]
