from .offloader import OffloadJob, QuantizedKVOffloader

__all__ = ["OffloadJob", "QuantizedKVOffloader"]
