from .config import SwapConfig
from .scheduler import SwapScheduler

__all__ = ["SwapConfig", "SwapScheduler"]
