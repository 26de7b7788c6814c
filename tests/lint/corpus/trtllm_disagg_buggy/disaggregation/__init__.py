from .transceiver import CacheTransceiverConfig, PyCacheTransceiver

__all__ = ["CacheTransceiverConfig", "PyCacheTransceiver"]
