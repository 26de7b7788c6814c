from .saver import AsyncCheckpointSaver
from .staging import PinnedStager, StagedCheckpoint

__all__ = ["AsyncCheckpointSaver", "PinnedStager", "StagedCheckpoint"]
