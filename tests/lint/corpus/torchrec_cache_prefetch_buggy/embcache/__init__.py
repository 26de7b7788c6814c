from .cache import CachedEmbeddingTable, PrefetchedBatch
from .config import CacheConfig, EvictionPolicy
from .pipeline import TrainPipelinePrefetch

__all__ = ["CacheConfig", "CachedEmbeddingTable", "EvictionPolicy", "PrefetchedBatch", "TrainPipelinePrefetch"]
