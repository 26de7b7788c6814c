from .policy import Policy
from .schedule import OverlappedDecoder

__all__ = ["OverlappedDecoder", "Policy"]
