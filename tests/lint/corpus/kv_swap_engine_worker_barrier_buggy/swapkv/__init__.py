from .cache_engine import CacheEngine
from .worker import Worker

__all__ = ["CacheEngine", "Worker"]
