from .config import ActivationOffloadConfig
from .manager import PipelineOffloadManager
from .mlp import OffloadableMLP

__all__ = ["ActivationOffloadConfig", "OffloadableMLP", "PipelineOffloadManager"]
