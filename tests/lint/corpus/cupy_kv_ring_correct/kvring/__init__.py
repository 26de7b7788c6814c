"""Paged KV ring buffer with host spill, built on CuPy."""
from .config import RingConfig
from .engine import KVRing

__all__ = ["RingConfig", "KVRing"]
