from .config import TriggerConfig
from .pipeline import TilePipeline

__all__ = ["TilePipeline", "TriggerConfig"]
