from .cache import PagedKVCache
from .scheduler import Scheduler
from .swapper import SwapWorker

__all__ = ["PagedKVCache", "Scheduler", "SwapWorker"]
