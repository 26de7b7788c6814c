"""KV-cache block swapping between GPU and pinned CPU memory, driven through libcudart."""

from .engine import BlockCopyEngine, CacheLayout
from .runner import CacheRunner, SchedulerOutput

__all__ = ["BlockCopyEngine", "CacheLayout", "CacheRunner", "SchedulerOutput"]
