"""KV cache exchange between context and generation servers."""

from .executor import DisaggExecutor
from .transceiver import KvCacheTransceiver

__all__ = ["DisaggExecutor", "KvCacheTransceiver"]
