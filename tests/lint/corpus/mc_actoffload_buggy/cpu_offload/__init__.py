"""Activation CPU offloading for transformer layers (saved-tensor hooks)."""

from .hooks import get_cpu_offload_context
from .handler import AsyncGroupOffloadHandler

__all__ = ["get_cpu_offload_context", "AsyncGroupOffloadHandler"]
