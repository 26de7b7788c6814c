from .async_checkpointer import AsyncCheckpointer
from .staging import PinnedMemoryStager, StagedStateDict
from .storage_writer import BackgroundCheckpointWriter

__all__ = ["AsyncCheckpointer", "BackgroundCheckpointWriter", "PinnedMemoryStager", "StagedStateDict"]
