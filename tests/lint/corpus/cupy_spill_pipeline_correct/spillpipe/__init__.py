"""Multi-stage CuPy feature pipeline with a device->host spill manager."""

from .config import SpillConfig
from .memory import SpillManager
from .pipeline import FeaturePipeline, Stage

__all__ = ["FeaturePipeline", "SpillConfig", "SpillManager", "Stage"]
