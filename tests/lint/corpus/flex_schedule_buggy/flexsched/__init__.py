"""Zig-zag block schedule for offloaded OPT inference (weights on host,
KV cache streamed to host / disk per layer)."""

from .engine import OffloadedDecoder
from .policy import Policy

__all__ = ["OffloadedDecoder", "Policy"]
