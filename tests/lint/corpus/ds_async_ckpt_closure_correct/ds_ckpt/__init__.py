from .engine import AsyncCheckpointEngine, CheckpointIOConfig

__all__ = ["AsyncCheckpointEngine", "CheckpointIOConfig"]
