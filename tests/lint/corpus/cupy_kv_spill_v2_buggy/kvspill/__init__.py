"""Spill GPU-resident KV blocks to local disk through pinned staging memory."""

from kvspill.manager import SpillConfig, SpillManager

__all__ = ["SpillConfig", "SpillManager"]
