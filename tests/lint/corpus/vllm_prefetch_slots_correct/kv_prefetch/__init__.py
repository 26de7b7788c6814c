from kv_prefetch.config import PrefetchConfig
from kv_prefetch.worker import PrefetchOffloadWorker

__all__ = ["PrefetchConfig", "PrefetchOffloadWorker"]
