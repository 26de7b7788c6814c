"""Checkpoint engines in the shape of DeepSpeed's ``runtime/checkpoint_engine`` package: an
abstract ``CheckpointEngine`` with ``create / save / load / commit``, a plain torch engine,
and a snapshot engine that copies the state to pinned host buffers on an accelerator side
stream and lets a writer thread persist it while training continues."""

from .base import CheckpointEngine
from .snapshot_engine import SnapshotCheckpointEngine
from .torch_engine import TorchCheckpointEngine

__all__ = ["CheckpointEngine", "SnapshotCheckpointEngine", "TorchCheckpointEngine"]
