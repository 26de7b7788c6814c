"""Brute-force inner-product search over a GPU-resident embedding matrix (cupy)."""
from .index import FlatIPIndex, PendingSearch

__all__ = ["FlatIPIndex", "PendingSearch"]
