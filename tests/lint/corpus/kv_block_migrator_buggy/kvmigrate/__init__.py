"""Paged KV-cache block migration between GPUs and pinned host memory."""

from .constants import BlockMove, SrcAccessOrder
from .migrator import KVBlockMigrator, OffloadTicket

__all__ = ["BlockMove", "KVBlockMigrator", "OffloadTicket", "SrcAccessOrder"]
