"""Context-side KV cache sender for disaggregated serving (libcudart via ctypes)."""

from .transceiver import CacheTransceiver, TransceiverConfig

__all__ = ["CacheTransceiver", "TransceiverConfig"]
