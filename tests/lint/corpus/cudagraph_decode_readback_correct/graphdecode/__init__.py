from .config import GraphRunnerConfig
from .decode import generate
from .runner import GraphDecodeRunner

__all__ = ["GraphDecodeRunner", "GraphRunnerConfig", "generate"]
