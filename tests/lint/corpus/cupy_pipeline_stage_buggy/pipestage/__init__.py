"""Two-device pipeline stage that hands activations across GPUs via pinned host memory."""

from .config import StageConfig
from .pipeline import TwoStagePipeline

__all__ = ["StageConfig", "TwoStagePipeline"]
