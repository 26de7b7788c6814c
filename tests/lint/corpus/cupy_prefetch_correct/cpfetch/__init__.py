from .prefetcher import BlockPrefetcher
from .runner import DecodeBatch, DecodeRunner, RunnerConfig

__all__ = ["BlockPrefetcher", "DecodeBatch", "DecodeRunner", "RunnerConfig"]
