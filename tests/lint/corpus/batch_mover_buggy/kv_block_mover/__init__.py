"""Driver-level block mover between the device KV pool and pinned host tiers."""

from .manager import OffloadManager, StepPlan
from .mover import BlockMover

__all__ = ["BlockMover", "OffloadManager", "StepPlan"]
