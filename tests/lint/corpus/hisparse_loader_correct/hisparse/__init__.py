from .config import HiSparseConfig
from .loader import HiSparseLoader
from .runner import HiSparseDecodeRunner

__all__ = ["HiSparseConfig", "HiSparseDecodeRunner", "HiSparseLoader"]
