"""Paged KV cache with CPU swap space, CuPy backend."""
from .config import CacheConfig
from .runner import ModelRunner, SchedulerOutput
from .swapper import BlockSwapper

__all__ = ["CacheConfig", "BlockSwapper", "ModelRunner", "SchedulerOutput"]
