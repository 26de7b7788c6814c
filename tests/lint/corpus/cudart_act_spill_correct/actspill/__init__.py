"""Activation checkpoint spilling to NVMe through pinned staging, via raw libcudart."""
from .checkpointer import ActivationCheckpointer
from .writer import SpillJob, SpillWriter

__all__ = ["ActivationCheckpointer", "SpillJob", "SpillWriter"]
