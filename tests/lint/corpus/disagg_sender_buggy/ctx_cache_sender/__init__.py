"""Context-phase KV cache sender for disaggregated serving (host-staged TCP transport)."""

from .config import CacheTransceiverConfig
from .ctx_executor import ContextOnlyExecutor
from .transceiver import CacheSender, TransferTask

__all__ = ["CacheSender", "CacheTransceiverConfig", "ContextOnlyExecutor", "TransferTask"]
