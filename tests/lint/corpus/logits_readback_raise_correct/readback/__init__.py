from .sampler import AsyncLogitsReadback

__all__ = ["AsyncLogitsReadback"]
